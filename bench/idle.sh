#!/usr/bin/env bash
# Idle cost: what usedspace costs a session that is not doing anything, against i3status,
# after a day's worth of clients have come and gone.
#
# First the churn (bench/lib/churn.py clients, CHURN_ROUNDS rounds, default 20): clients of
# every kind connect and go away, as bars restart and scripts run: `usedspace watch` in each
# format killed (SIGKILL, SIGTERM, its pipes closed), `usedspace status` in three formats, raw
# subscribers that close, half-close, reset, or vanish mid-request, socat subscribers killed.
# (A vanished subscriber once made the daemon spin until its next publish: an idle window
# measured without churn never saw it.) The daemon's open descriptors are counted before and
# after the churn: they must come back.
#
# Then, for DURATION seconds (default 600), with nothing changing on the watched filesystem:
#   - usedspaced sampling every 1 s, plus one `usedspace watch --format i3bar` subscribed to it
#     (its output to /dev/null, as a status bar would read it),
#   - i3status with one disk block and `interval = 1`, started at the same moment.
# Reported per process, summed over its threads: CPU time from /proc/PID/task/*/schedstat
# (nanoseconds actually run, not 10 ms ticks) and wakeups (voluntary + involuntary context
# switches, /proc/PID/task/*/status) per minute, and the ratio of usedspace's total CPU time
# (daemon + watch) to i3status's. Target (issue): <= 0.5x i3status.
#
# Run:  bench/idle.sh            (10 minutes)     DURATION=60 bench/idle.sh   (a quick look)
# Needs: swift, i3status, python3, socat. Set USEDSPACE_BIN_DIR to use built binaries.
#
# IDLE_FS=btrfs (root, btrfs-progs) watches a quiet loop-mounted btrfs instead of the tmpfs,
# so that the daemon's btrfs allocation reader (sysfs) is part of what is measured.
# BASELINE_BIN_DIR=DIR runs a second daemon and watch from DIR (an earlier build) at the same
# moment on the same filesystem, churned the same way, so that "no regression" is judged in
# the same run.
# IDLE_AUTO=N (root) mounts N quiet loop ext4 filesystems and runs the daemon with
# `--path auto` besides the watched tmpfs: it then watches every real filesystem of the
# machine (/ and whatever else is mounted, plus the N), following the mount table. The
# watch and i3status still show the one quiet filesystem; the baseline daemon, if any, keeps
# `--path` alone (an earlier build may not know auto).
# IDLE_PRIVATE_MOUNTS=1 (with IDLE_AUTO) runs that daemon in a mount namespace of its own
# (unshare --mount --propagation private), made after the loops are mounted: the mounts and
# unmounts other work on the machine makes meanwhile (other test suites) do not reach it, as
# on a session where nothing is being mounted. Without it, the count of mount table changes
# the daemon followed during the run is printed, to judge the figures by.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib/peers.sh
source "$repo/bench/lib/peers.sh"
duration=${DURATION:-600}
command -v i3status >/dev/null || { echo "error: i3status is missing: apt-get install i3status" >&2; exit 1; }
# shellcheck source=bench/lib/binaries.sh
source "$repo/bench/lib/binaries.sh"
bench_binaries "$repo"
bin=$BENCH_BIN
work=$(mktemp -d /tmp/usedspace-bench-idle.XXXXXX)
mkdir -p "$work/runtime" "$work/state" "$work/quiet"
pids=()
mounted=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true
    for (( i = ${#mounted[@]} - 1; i >= 0; i-- )); do umount "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
export XDG_RUNTIME_DIR=$work/runtime XDG_CONFIG_HOME=$work/config
unset USEDSPACE_SOCKET NOTIFY_SOCKET WATCHDOG_USEC LISTEN_FDS JOURNAL_STREAM
# A directory of its own on the root filesystem would still see the rest of the machine
# writing; a small tmpfs keeps "nothing changes" true when run as root.
watched=$work/quiet
if [[ ${IDLE_FS:-tmpfs} == btrfs ]]; then
    [[ $(id -u) == 0 ]] || { echo "error: IDLE_FS=btrfs needs root (a loop mount)" >&2; exit 1; }
    truncate -s 512M "$work/btrfs.img"
    mkfs.btrfs -q -f "$work/btrfs.img" >/dev/null
    mount -o loop "$work/btrfs.img" "$watched"
    mounted+=("$watched")
    btrfs filesystem sync "$watched"
elif [[ $(id -u) == 0 ]] && mount -t tmpfs -o size=16m tmpfs "$watched" 2>/dev/null; then
    mounted+=("$watched")
fi
daemon_paths=(--path "$watched")
if (( ${IDLE_AUTO:-0} > 0 )); then
    [[ $(id -u) == 0 ]] || { echo "error: IDLE_AUTO needs root (loop mounts)" >&2; exit 1; }
    for i in $(seq "$IDLE_AUTO"); do
        truncate -s 16M "$work/auto$i.img"
        # No lazy initialisation: it would write in the background while we measure.
        mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$work/auto$i.img"
        mkdir -p "$work/auto/$i"
        mount -o loop "$work/auto$i.img" "$work/auto/$i"
        mounted+=("$work/auto/$i")
    done
    daemon_paths+=(--path auto)
fi
echo "# watching $watched ($(stat -f -c %T "$watched"))"
i3status_config "$work/i3status.conf" "$watched"
private_mounts=()
if (( ${IDLE_AUTO:-0} > 0 )) && [[ ${IDLE_PRIVATE_MOUNTS:-0} == 1 ]]; then
    private_mounts=(unshare --mount --propagation private)
fi
# unshare execs the daemon: $! is the daemon's own PID.
"${private_mounts[@]}" "$bin/usedspaced" --state-dir "$work/state" "${daemon_paths[@]}" --interval 1s 2>"$work/daemon.log" &
daemon=$!; pids+=($daemon)
for _ in $(seq 100); do [[ -S $work/runtime/usedspace.sock ]] && break; sleep 0.05; done
sleep 0.5
if (( ${IDLE_AUTO:-0} > 0 )); then
    echo "# usedspaced ${daemon_paths[*]}: $(USEDSPACE_SOCKET=$work/runtime/usedspace.sock "$bin/usedspace" status --all --format json | wc -l) filesystems watched"
fi
descriptors() { find /proc/"$1"/fd -mindepth 1 -maxdepth 1 | wc -l; }
if [[ -n ${BASELINE_BIN_DIR:-} ]]; then
    mkdir -p "$work/baseline-runtime" "$work/baseline-state"
    XDG_RUNTIME_DIR=$work/baseline-runtime "$BASELINE_BIN_DIR/usedspaced" --state-dir "$work/baseline-state" --path "$watched" --interval 1s 2>"$work/baseline-daemon.log" &
    baseline=$!; pids+=($baseline)
    for _ in $(seq 100); do [[ -S $work/baseline-runtime/usedspace.sock ]] && break; sleep 0.05; done
fi
fds_before=$(descriptors "$daemon")
echo "# churn: ${CHURN_ROUNDS:-20} rounds of every kind of client"
churn_started=$(date +%s.%N)
python3 "$repo/bench/lib/churn.py" clients "$work/runtime/usedspace.sock" "$bin" "$watched" "${CHURN_ROUNDS:-20}" >"$work/churn.txt"
if [[ -n ${BASELINE_BIN_DIR:-} ]]; then
    XDG_RUNTIME_DIR=$work/baseline-runtime python3 "$repo/bench/lib/churn.py" clients "$work/baseline-runtime/usedspace.sock" "$BASELINE_BIN_DIR" "$watched" "${CHURN_ROUNDS:-20}" >/dev/null
fi
echo "# churn: $(awk '$1 == "clients" { print $2 }' "$work/churn.txt") clients in $(python3 -c "import sys, time; print(round(time.time() - float(sys.argv[1]), 1))" "$churn_started") s"
sleep 1
fds_after=$(descriptors "$daemon")
"$bin/usedspace" watch --format i3bar --path "$watched" </dev/null >/dev/null 2>"$work/watch.log" &
watch=$!; pids+=($watch)
if [[ -n ${BASELINE_BIN_DIR:-} ]]; then
    XDG_RUNTIME_DIR=$work/baseline-runtime "$BASELINE_BIN_DIR/usedspace" watch --format i3bar --path "$watched" </dev/null >/dev/null 2>"$work/baseline-watch.log" &
    baseline_watch=$!; pids+=($baseline_watch)
fi
i3status -c "$work/i3status.conf" >/dev/null 2>"$work/i3status.log" &
i3status=$!; pids+=($i3status)
sleep 1
snapshot() {  # pid -> "cpu_nanoseconds switches", over all its threads
    # %.0f, not %d: mawk's %d stops at 2^31 ns (2.1 s), which made a spinning daemon read 0.
    local cpu; cpu=$(cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }')
    local switches; switches=$(cat /proc/"$1"/task/*/status | awk '/ctxt_switches/ { s += $2 } END { print s }')
    echo "$cpu $switches"
}
measured=($daemon $watch $i3status)
[[ -n ${BASELINE_BIN_DIR:-} ]] && measured+=($baseline $baseline_watch)
declare -A start
for p in "${measured[@]}"; do start[$p]=$(snapshot "$p"); done
echo "# measuring for $duration s (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
sleep "$duration"
declare -A end
for p in "${measured[@]}"; do end[$p]=$(snapshot "$p"); done
ticks=1000000000
grep -q ': published ' "$work/daemon.log" && publishes=$(grep -c ': published ' "$work/daemon.log") || publishes=0
baseline_args=()
[[ -n ${BASELINE_BIN_DIR:-} ]] && baseline_args=("${start[$baseline]}" "${end[$baseline]}" "${start[$baseline_watch]}" "${end[$baseline_watch]}")
python3 - "$duration" "$ticks" "${start[$daemon]}" "${end[$daemon]}" "${start[$watch]}" "${end[$watch]}" "${start[$i3status]}" "${end[$i3status]}" "${baseline_args[@]}" "$( (( ${IDLE_AUTO:-0} > 0 )) && echo " --path auto, $IDLE_AUTO ext4 loops" || echo -)" <<'EOP'
import sys
duration, ticks = float(sys.argv[1]), int(sys.argv[2])
def delta(a, b):
    a0, a1 = (int(x) for x in a.split()); b0, b1 = (int(x) for x in b.split())
    return (b0 - a0) / ticks, (b1 - a1)
d = delta(sys.argv[3], sys.argv[4]); w = delta(sys.argv[5], sys.argv[6]); i = delta(sys.argv[7], sys.argv[8])
baseline = (delta(sys.argv[9], sys.argv[10]), delta(sys.argv[11], sys.argv[12])) if len(sys.argv) > 13 else None
minutes = duration / 60
print(f"| process | CPU time (ms) | wakeups per minute |")
print(f"| --- | ---: | ---: |")
print(f"| i3status, one disk block, interval = 1 | {i[0] * 1000:.1f} | {i[1] / minutes:.0f} |")
print(f"| usedspaced, --interval 1s{sys.argv[-1] if sys.argv[-1].startswith(' ') else ''} | {d[0] * 1000:.1f} | {d[1] / minutes:.0f} |")
print(f"| usedspace watch --format i3bar | {w[0] * 1000:.1f} | {w[1] / minutes:.0f} |")
total = d[0] + w[0]
ratio = total / i[0] if i[0] > 0 else float("inf")
print(f"| **usedspace total** | **{total * 1000:.1f}** | **{(d[1] + w[1]) / minutes:.0f}** |")
print()
print(f"CPU ratio usedspace / i3status over {duration:.0f} s: {ratio:.2f}x (target <= 0.5x)")
if baseline:
    (bd, bw) = baseline
    btotal = bd[0] + bw[0]
    print()
    print(f"| baseline usedspaced (BASELINE_BIN_DIR) | {bd[0] * 1000:.1f} | {bd[1] / minutes:.0f} |")
    print(f"| baseline usedspace watch | {bw[0] * 1000:.1f} | {bw[1] / minutes:.0f} |")
    print(f"CPU ratio baseline / i3status: {btotal / i[0]:.2f}x; this build / baseline: {total / btotal:.2f}x" if i[0] > 0 and btotal > 0 else "baseline: no CPU time")
EOP
echo "publishes during the run: $publishes (log lines)"
grep -q 'mount table changed' "$work/daemon.log" && mount_changes=$(grep -c 'mount table changed' "$work/daemon.log") || mount_changes=0
(( ${IDLE_AUTO:-0} > 0 )) && echo "mount table changes the daemon followed: $mount_changes${private_mounts[*]:+ (private mount namespace)}"
echo "daemon's open descriptors before / after the churn: $fds_before / $fds_after"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
