#!/usr/bin/env bash
# The daemon's costs: `usedspace status` answered by the daemon, and the daemon's memory after
# an hour's worth of work, each against a peer measured in the same run.
#
# 1. Wall time of `usedspace status` (and --format json) when usedspaced answers, as ratios
#    against `df -h ~`, pair by pair in rounds (bench/lib/rounds.sh). Target: <= 1.5x.
# 2. Resident memory (VmRSS, and the peak VmHWM) of usedspaced after SAMPLES samples (default
#    720: an hour at the default 5 s interval, run at a 100 ms interval) with one subscriber
#    connected, while a file on a tmpfs is written and removed so that nearly every sample
#    publishes (a far busier hour than a real one: every publish is rendered, sent and
#    written to the state file), and CHURN_ROUNDS (10) rounds of clients of every kind come
#    and go (bench/lib/churn.py: watches killed, statuses, subscribers that vanish).
#    Against i3status with one disk block (interval = 1) started at the same time and
#    measured at the same moment; beside it a bar's block, `usedspace watch --format i3bar`.
#    Targets (issue 19): usedspaced <= 0.75x i3status's RSS, the watch <= 1.5 MB, both
#    together <= 1.0x.
#
# Run as root (mounts a tmpfs):  bench/daemon.sh        BENCH_QUICK=1 bench/daemon.sh
# Needs: swift, python3, hyperfine, i3status, socat (apt-get install hyperfine i3status socat).
# Set USEDSPACE_BIN_DIR to measure already built binaries (usedspace, usedspaced in it), and
# BENCH_PARTS="2" to run only the memory part (default "1 2"). The normal (not Embedded)
# build, for comparison:
#   swift build -c release --scratch-path .build-bench-plain
#   USEDSPACE_BIN_DIR=.build-bench-plain/release BENCH_PARTS=2 bench/daemon.sh
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib/peers.sh
source "$repo/bench/lib/peers.sh"
# shellcheck source=bench/lib/rounds.sh
source "$repo/bench/lib/rounds.sh"
bench_require hyperfine python3 i3status socat
[[ $(id -u) == 0 ]] || { echo "error: run as root (the memory part mounts a tmpfs)" >&2; exit 1; }

# shellcheck source=bench/lib/binaries.sh
source "$repo/bench/lib/binaries.sh"
bench_binaries "$repo"
bin=$BENCH_BIN
samples=${SAMPLES:-720}
[[ ${BENCH_QUICK:-0} == 1 ]] && samples=${SAMPLES:-100}

work=$(mktemp -d /tmp/usedspace-bench-daemon.XXXXXX)
out=${BENCH_OUT:-$work/results}
mkdir -p "$out" "$work/runtime" "$work/state" "$work/tmpfs"
# Every background job runs in its own process group (setsid), so that stopping one stops
# its whole pipeline; cleanup waits at most a few seconds and cannot hang.
groups=()
start_group() { setsid "$@" & groups+=($!); }
stop_group() {
    local pgid=$1 _
    kill -TERM -- "-$pgid" 2>/dev/null || return 0
    for _ in $(seq 50); do kill -0 -- "-$pgid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL -- "-$pgid" 2>/dev/null || true
}
cleanup() {
    local pgid
    for pgid in "${groups[@]}"; do stop_group "$pgid"; done
    mountpoint -q "$work/tmpfs" && { umount "$work/tmpfs" 2>/dev/null || umount -l "$work/tmpfs" 2>/dev/null || true; }
    return 0
}
trap cleanup EXIT

export XDG_RUNTIME_DIR=$work/runtime
unset USEDSPACE_SOCKET NOTIFY_SOCKET WATCHDOG_USEC LISTEN_FDS JOURNAL_STREAM
socket=$work/runtime/usedspace.sock
wait_for_daemon() {
    local _
    for _ in $(seq 200); do
        [[ $(echo ping | socat -t 1 - "UNIX-CONNECT:$socket" 2>/dev/null) == *pong* ]] && return 0
        sleep 0.05
    done
    echo "error: the daemon does not answer on $socket" >&2; exit 1
}

parts=" ${BENCH_PARTS:-1 2} "
if [[ $parts == *" 1 "* ]]; then
echo "## 1. usedspace status through the daemon, against df -h ~"
start_group "$bin/usedspaced" --state-dir "$work/state" --interval 5s 2>"$work/daemon1.log"
wait_for_daemon
"$bin/usedspace" status --format json | grep -q '"source":"daemon"' || { echo "error: the daemon does not answer" >&2; exit 1; }
q_client=$(printf '%q' "$bin/usedspace")
bench_rounds "$out/status" \
    "df -h ~" "df -h $(printf '%q' "$HOME")" \
    "usedspace status (daemon)" "$q_client status" \
    "usedspace status --format json (daemon)" "$q_client status --format json"
stop_group "${groups[-1]}"
rm -f "$socket"
echo
fi

[[ $parts == *" 2 "* ]] || exit 0
echo "## 2. memory after $samples samples with one subscriber, against i3status with one disk block"
mount -t tmpfs -o size=100m tmpfs "$work/tmpfs"
i3status_config "$work/i3status.conf" "$work/tmpfs"
start_group "$bin/usedspaced" --state-dir "$work/state" --path "$work/tmpfs" --interval 100ms 2>"$work/daemon2.log"
daemon=${groups[-1]}
start_group i3status -c "$work/i3status.conf" >/dev/null 2>"$work/i3status.log"
i3status=${groups[-1]}
wait_for_daemon
# One subscriber that reads every update (counted at the end).
# (A pipeline with a `sleep` in it: only stopping its whole process group ends it.)
start_group bash -c '(echo "subscribe format=json"; exec sleep 100000) | socat -t 100000 - "UNIX-CONNECT:$2" >"$1"' \
    subscriber "$work/subscriber.log" "$socket"
subscriber=${groups[-1]}
# And a bar's block: `usedspace watch --format i3bar`, the other process a bar user pays for.
start_group "$bin/usedspace" watch --format i3bar --path "$work/tmpfs" >"$work/watch.log" 2>&1
watch=${groups[-1]}
# Clients that come and go meanwhile, of every kind (bench/lib/churn.py), as bars restart.
start_group python3 "$repo/bench/lib/churn.py" clients "$socket" "$bin" "$work/tmpfs" "${CHURN_ROUNDS:-10}" >"$work/churn.txt"
# Churn: 1 MiB written, then removed, every 100 ms: ~1 % of the tmpfs each time.
end=$(( $(date +%s%N) + samples * 100000000 ))
while (( $(date +%s%N) < end )); do
    head -c 1048576 /dev/zero >"$work/tmpfs/churn"; sleep 0.1
    rm -f "$work/tmpfs/churn"; sleep 0.1
done
sleep 0.5
field() { awk -v key="$2:" '$1 == key { print $2 }' "/proc/$1/status"; }
d_rss=$(field $daemon VmRSS); d_hwm=$(field $daemon VmHWM)
w_rss=$(field $watch VmRSS); w_hwm=$(field $watch VmHWM)
i_rss=$(field $i3status VmRSS); i_hwm=$(field $i3status VmHWM)
publishes=$(grep -c ': published ' "$work/daemon2.log" || true)
breakdown() { # Rss per mapped file of $1, in KiB, largest first (anonymous memory as [anon])
    awk '/^[0-9a-f]+-[0-9a-f]+ / { name = ($6 == "") ? "[anon]" : $6; sub(".*/", "", name) }
         $1 == "Rss:" { rss[name] += $2 }
         END { for (n in rss) if (rss[n] > 0) printf "%d %s\n", rss[n], n }' "/proc/$1/smaps" | sort -rn
}
d_anon=$(field $daemon RssAnon); d_file=$(field $daemon RssFile)
i_anon=$(field $i3status RssAnon); i_file=$(field $i3status RssFile)
# Pss (proportional set size) splits each shared page among the processes mapping it: a second
# view, in which libc's pages cost each process a share. The target is on VmRSS.
pss() { awk '$1 == "Pss:" { print $2 }' "/proc/$1/smaps_rollup"; }
d_pss=$(pss $daemon); i_pss=$(pss $i3status)
breakdown $daemon >"$out/daemon-smaps.txt"; breakdown $i3status >"$out/i3status-smaps.txt"
stop_group "$subscriber"; stop_group "$watch"
echo "clients that came and went meanwhile: $(awk '$1 == "clients" { print $2 }' "$work/churn.txt" 2>/dev/null)"
echo "daemon publishes: $publishes (log lines 'published …'); updates the subscriber read: $(grep -c '^update' "$work/subscriber.log" || true)"
python3 - "$d_rss" "$d_hwm" "$d_anon" "$d_file" "$i_rss" "$i_hwm" "$i_anon" "$i_file" "$samples" "$d_pss" "$i_pss" "$w_rss" "$w_hwm" <<'EOP' | tee "$out/memory.md"
import sys
d_rss, d_hwm, d_anon, d_file, i_rss, i_hwm, i_anon, i_file, samples, d_pss, i_pss, w_rss, w_hwm = (int(x) for x in sys.argv[1:])
print(f"| process | VmRSS (KiB) | RssAnon | RssFile | VmHWM (KiB) | RSS ratio vs i3status | Pss (KiB) |")
print(f"| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
print(f"| i3status, one disk block, interval = 1 | {i_rss} | {i_anon} | {i_file} | {i_hwm} | 1.00x | {i_pss} |")
print(f"| usedspaced after {samples} samples, 1 subscriber | {d_rss} | {d_anon} | {d_file} | {d_hwm} | {d_rss / i_rss:.2f}x | {d_pss} |")
print(f"| usedspace watch --format i3bar | {w_rss} | | | {w_hwm} | {w_rss / i_rss:.2f}x | |")
print(f"| usedspaced + watch | {d_rss + w_rss} | | | | {(d_rss + w_rss) / i_rss:.2f}x | |")
EOP
echo
echo "Rss by mapping (KiB), usedspaced | i3status:"
paste -d'|' <(head -12 "$out/daemon-smaps.txt") <(head -12 "$out/i3status-smaps.txt") | awk -F'|' '{ printf "  %-34s | %s\n", $1, $2 }'
echo
echo "# results: $out"
