#!/usr/bin/env bash
# What a publish costs: usedspace (daemon + one `watch --format i3bar`) against i3status with
# one disk block, on an idle disk and on a disk in use, in one run.
#
# The daemon runs as users run it: socket-activated under the shipped unit in an
# unprivileged user's systemd manager (bench/lib/user-service.sh), `--interval 1s`, watching
# a tmpfs; the watch runs as that user too. i3status (`interval = 1`) shows the same tmpfs.
# First the churn of bench/lib/churn.py (CHURN_ROUNDS rounds of clients of every kind
# coming and going), then two windows of DURATION seconds each (default 600):
#   idle: nothing changes on the tmpfs;
#   busy: a writer appends 256 KiB every second (0.024 % of the tmpfs: every sample
#   publishes, as on a home where a download or a build writes; the bar's one decimal
#   changes every few seconds).
# Reported per process, summed over its threads: CPU time (/proc/PID/task/*/schedstat) and
# wakeups (voluntary + involuntary context switches) per minute; for the busy window, per
# publish too. Then 60 s more of the busy disk under `strace -f -c` of the daemon: its
# system calls per publish, fsyncs and failed calls.
# The user manager has the session bus when dbus-user-session is installed (dbus.socket), as
# a desktop user's has, and the daemon then sends a PropertiesChanged per publish:
# BENCH_SESSION_BUS=0 masks it, for the daemon without a bus. The bus daemon's own CPU
# (routing the signals) is reported beside, not in the ratio: i3status has no counterpart.
# Targets (issue "A publish that costs almost nothing"): busy <= 0.5x i3status's CPU, idle
# <= 0.3x; per publish <= 3 wakeups of the daemon and 1 of the watch; no fsync and no
# failed call per publish.
#
# Run as root:  bench/publish.sh        DURATION=60 bench/publish.sh  (a quick look)
#               BENCH_SESSION_BUS=0 bench/publish.sh                 (the daemon without a bus)
# Needs: swift, cc, i3status, python3, socat, strace, systemd (apt-get install i3status socat
# strace systemd). USEDSPACE_BIN_DIR=DIR measures built binaries (usedspace, usedspaced).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib/peers.sh
source "$repo/bench/lib/peers.sh"
duration=${DURATION:-600}
[[ $(id -u) == 0 ]] || { echo "error: run as root (a user manager, a tmpfs)" >&2; exit 1; }
for tool in cc i3status python3 socat strace; do command -v "$tool" >/dev/null || { echo "error: $tool is missing" >&2; exit 1; }; done
# shellcheck source=bench/lib/binaries.sh
source "$repo/bench/lib/binaries.sh"
bench_binaries "$repo"
bin=$BENCH_BIN
# shellcheck source=bench/lib/user-service.sh
source "$repo/bench/lib/user-service.sh"

work=$(mktemp -d /tmp/usedspace-bench-publish.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/fs"
mount -t tmpfs -o size=1g,mode=1777 tmpfs "$work/fs"
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    us_stop
    umount -l "$work/fs" 2>/dev/null || true
}
trap cleanup EXIT

# BENCH_USER: another user for the manager, beside a benchmark that runs as usedspace-bench.
us_start "${BENCH_USER:-usedspace-bench}"
if [[ ${BENCH_SESSION_BUS:-1} == 0 ]]; then
    us_run systemctl --user mask --now dbus.socket dbus.service >/dev/null 2>&1 || true
fi
us_units "$bin" --path "$work/fs" --interval 1s
socket=$US_RUNTIME/usedspace.sock
us_run "$bin/usedspace" status --path "$work/fs" >/dev/null   # the first client starts it
daemon=$(us_main_pid)
[[ $daemon != 0 ]] || { echo "error: usedspace.service did not start" >&2; exit 1; }
echo "# usedspaced (pid $daemon) under the shipped unit, as $US_USER, watching $work/fs"
bus=
for _ in $(seq 50); do  # socket-activated by the daemon's connection
    bus=$(pgrep -u "$US_UID" -x dbus-daemon | head -n 1 || true)
    [[ -n $bus || ${BENCH_SESSION_BUS:-1} == 0 ]] && break
    sleep 0.1
done
if [[ -n $bus ]]; then echo "# session bus: yes, dbus-daemon pid $bus"; else echo "# session bus: none"; fi
echo "# churn: ${CHURN_ROUNDS:-20} rounds of every kind of client"
us_run python3 "$repo/bench/lib/churn.py" clients "$socket" "$bin" "$work/fs" "${CHURN_ROUNDS:-20}" >"$work/churn.txt"
gid=$(id -g "$US_USER")
setpriv --reuid="$US_UID" --regid="$gid" --init-groups env "${US_ENV[@]}" \
    "$bin/usedspace" watch --format i3bar --path "$work/fs" </dev/null >/dev/null 2>"$work/watch.log" &
watch=$!; pids+=($watch)
i3status_config "$work/i3status.conf" "$work/fs"
i3status -c "$work/i3status.conf" >/dev/null 2>"$work/i3status.log" &
i3status=$!; pids+=($i3status)
cc -O2 -pthread -o "$work/floor" "$repo/bench/floor.c"
"$work/floor" daemon "$work/fs" "$work/floor.sock" threads &
floor=$!; pids+=($floor)
for _ in $(seq 50); do [[ -S $work/floor.sock ]] && break; sleep 0.1; done
"$work/floor" watch "$work/floor.sock" >/dev/null &
floor_watch=$!; pids+=($floor_watch)
sleep 2

snapshot() {  # pid -> "cpu_nanoseconds switches"
    local cpu switches
    cpu=$(cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }')
    switches=$(cat /proc/"$1"/task/*/status | awk '/ctxt_switches/ { s += $2 } END { print s }')
    echo "$cpu $switches"
}
seq_now() { us_run "$bin/usedspace" status --path "$work/fs" --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["seq"])'; }
window() {  # name -> "name seconds publishes d_cpu d_sw w_cpu w_sw i_cpu i_sw b_cpu b_sw"
    local name=$1 p
    local -A start end
    local seq0 seq1 measured=("$daemon" "$watch" "$i3status" "$floor" "$floor_watch")
    [[ -n $bus ]] && measured+=("$bus")
    seq0=$(seq_now)
    for p in "${measured[@]}"; do start[$p]=$(snapshot "$p"); done
    sleep "$duration"
    for p in "${measured[@]}"; do end[$p]=$(snapshot "$p"); done
    seq1=$(seq_now)
    local line="$name $duration $((seq1 - seq0)) ${start[$daemon]} ${end[$daemon]} ${start[$watch]} ${end[$watch]} ${start[$i3status]} ${end[$i3status]}"
    line+=" ${start[$floor]} ${end[$floor]} ${start[$floor_watch]} ${end[$floor_watch]}"
    [[ -n $bus ]] && line+=" ${start[$bus]} ${end[$bus]}"
    echo "$line"
}
echo "# idle window: $duration s (load $(cut -d' ' -f1-3 /proc/loadavg))"
idle=$(window idle)
python3 "$repo/bench/lib/writer.py" "$work/fs/writer" &
pids+=($!)
sleep 2
echo "# busy window: $duration s, 256 KiB a second (load $(cut -d' ' -f1-3 /proc/loadavg))"
busy=$(window busy)
echo "# 60 s more of the busy disk under strace -f -c"
seq0=$(seq_now)
timeout -s INT 60 strace -f -c -p "$daemon" -o "$work/strace.txt" >/dev/null 2>&1 || true
seq1=$(seq_now)
python3 - "$idle" "$busy" "$work/strace.txt" "$((seq1 - seq0))" <<'EOP'
import sys
def parse(line):
    name, seconds, publishes, *numbers = line.split()
    numbers = [int(x) for x in numbers]
    pairs = [(numbers[i + 2] - numbers[i], numbers[i + 3] - numbers[i + 1]) for i in range(0, len(numbers), 4)]
    return name, float(seconds), int(publishes), pairs
print("| window | usedspaced CPU (ms) | watch CPU (ms) | i3status CPU (ms) | usedspace / i3status | daemon wakeups/min | watch wakeups/min | i3status wakeups/min | publishes |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
results, floors = {}, []
for line in sys.argv[1:3]:
    name, seconds, publishes, ((dc, dw), (wc, ww), (ic, iw), (fc, fw), (fwc, fww), *rest) = parse(line)
    minutes = seconds / 60
    ratio = (dc + wc) / ic if ic else float("inf")
    results[name] = (ratio, publishes, dc, dw, wc, ww, rest[0][0] if rest else None, (fc + fwc) / ic if ic else float("inf"))
    print(f"| {name} | {dc / 1e6:.1f} | {wc / 1e6:.1f} | {ic / 1e6:.1f} | **{ratio:.2f}x** | {dw / minutes:.0f} | {ww / minutes:.0f} | {iw / minutes:.0f} | {publishes} |")
    floors.append(f"| {name} | {fc / 1e6:.1f} | {fwc / 1e6:.1f} | {ic / 1e6:.1f} | **{results[name][7]:.2f}x** | {fw / minutes:.0f} | {fww / minutes:.0f} |")
print("\nThe C floor of the same shape (bench/floor.c), same windows:\n")
print("| window | floor daemon CPU (ms) | floor watch CPU (ms) | i3status CPU (ms) | floor / i3status | daemon wakeups/min | watch wakeups/min |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
print("\n".join(floors))
ratio, publishes, dc, dw, wc, ww, bc, _ = results["busy"]
if publishes:
    print(f"\nbusy: per publish, {dc / publishes / 1e3:.0f} us of daemon CPU and {wc / publishes / 1e3:.0f} us of the watch's; "
          f"{dw / publishes:.1f} wakeups of the daemon, {ww / publishes:.1f} of the watch")
for name in ("idle", "busy"):
    if results[name][6] is not None:
        print(f"{name}: the session bus's dbus-daemon used {results[name][6] / 1e6:.1f} ms (not in the ratio)")
print(f"targets: busy <= 0.5x ({results['busy'][0]:.2f}x), idle <= 0.3x ({results['idle'][0]:.2f}x); "
      f"the C floor: busy {results['busy'][7]:.2f}x, idle {results['idle'][7]:.2f}x")
calls, errors, fsyncs = 0, 0, 0
for row in open(sys.argv[3]):
    fields = row.split()
    if len(fields) >= 5 and fields[0].replace(".", "").isdigit() and fields[-1] not in ("total",):
        count = int(fields[3])
        failed = int(fields[4]) if len(fields) == 6 else 0
        calls += count
        errors += failed
        if fields[-1] in ("fsync", "fdatasync"):
            fsyncs += count
strace_publishes = int(sys.argv[4])
if strace_publishes:
    print(f"under strace, {strace_publishes} publishes: {calls / strace_publishes:.1f} system calls, {fsyncs / strace_publishes:.2f} fsyncs "
          f"and {errors / strace_publishes:.2f} failed calls per publish")
print("\nstrace -f -c of the daemon:")
print(open(sys.argv[3]).read())
EOP
