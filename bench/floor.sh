#!/usr/bin/env bash
# The floor of a publish in usedspace's shape, against i3status, in one run: bench/floor.c
# (C, no allocation, nothing but the calls) as a daemon with a sampling thread and a loop
# (usedspaced's shape: statvfs off the loop), as a daemon of one thread, each with a relay
# `watch`; i3status with one disk block. Same tmpfs, `interval = 1`, a writer appending
# 256 KiB a second (every sample is news), DURATION seconds (default 120).
# It says what the design costs before any code of ours runs: bench/publish.sh's
# ratio cannot go below this one's.
#
# Run as root:  bench/floor.sh        Needs: cc, i3status, python3.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib/peers.sh
source "$repo/bench/lib/peers.sh"
duration=${DURATION:-120}
[[ $(id -u) == 0 ]] || { echo "error: run as root (a tmpfs)" >&2; exit 1; }
for tool in cc i3status python3; do command -v "$tool" >/dev/null || { echo "error: $tool is missing" >&2; exit 1; }; done
work=$(mktemp -d /tmp/usedspace-bench-floor.XXXXXX)
mkdir -p "$work/fs"
mount -t tmpfs -o size=1g tmpfs "$work/fs"
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    umount -l "$work/fs" 2>/dev/null || true
}
trap cleanup EXIT
cc -O2 -pthread -o "$work/floor" "$repo/bench/floor.c"

"$work/floor" daemon "$work/fs" "$work/threads.sock" threads & pids+=($!); threaded=$!
"$work/floor" daemon "$work/fs" "$work/single.sock" & pids+=($!); single=$!
for _ in $(seq 50); do [[ -S $work/threads.sock && -S $work/single.sock ]] && break; sleep 0.1; done
"$work/floor" watch "$work/threads.sock" >/dev/null & pids+=($!); threaded_watch=$!
"$work/floor" watch "$work/single.sock" >/dev/null & pids+=($!); single_watch=$!
i3status_config "$work/i3status.conf" "$work/fs"
i3status -c "$work/i3status.conf" >/dev/null 2>&1 & pids+=($!); i3status=$!
python3 "$repo/bench/lib/writer.py" "$work/fs/writer" &
pids+=($!)
sleep 2

cpu() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }'; }
switches() { cat /proc/"$1"/task/*/status | awk '/ctxt_switches/ { s += $2 } END { print s }'; }
measured=("$threaded" "$threaded_watch" "$single" "$single_watch" "$i3status")
declare -A c0 s0
for p in "${measured[@]}"; do c0[$p]=$(cpu "$p"); s0[$p]=$(switches "$p"); done
echo "# busy window: $duration s (load $(cut -d' ' -f1-3 /proc/loadavg))"
sleep "$duration"
declare -A c1 s1
for p in "${measured[@]}"; do c1[$p]=$(cpu "$p"); s1[$p]=$(switches "$p"); done
i3=$(( c1[$i3status] - c0[$i3status] ))
row() {  # name daemon watch
    local d=$(( c1[$2] - c0[$2] )) w=$(( c1[$3] - c0[$3] ))
    python3 -c "import sys; d, w, i, ds, ws, s = map(int, sys.argv[2:]); print(f'| {sys.argv[1]} | {d/1e6:.1f} | {w/1e6:.1f} | {i/1e6:.1f} | **{(d + w) / i:.2f}x** | {ds / s:.1f} | {ws / s:.1f} |')" \
        "$1" "$d" "$w" "$i3" "$(( s1[$2] - s0[$2] ))" "$(( s1[$3] - s0[$3] ))" "$duration"
}
echo "| C floor | daemon CPU (ms) | watch CPU (ms) | i3status CPU (ms) | floor / i3status | daemon wakeups/s | watch wakeups/s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
row "sampling thread + loop (usedspaced's shape)" "$threaded" "$threaded_watch"
row "one thread (statvfs on the loop)" "$single" "$single_watch"
