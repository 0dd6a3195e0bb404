#!/usr/bin/env bash
# Soak: CYCLES (10,000) subscribe/disconnect cycles, RATE (200) a second, against usedspaced
# sampling every 100 ms while its filesystem keeps changing, so that publishes and vanishing
# clients interleave (about 160 publishes during 10,000 cycles at the default rate).
#
# The daemon watches a 64 MiB tmpfs at --interval 100ms; a writer writes and removes a 1 MiB
# file there every 150 ms (nearly every sample publishes). STAYERS (5) subscribers stay
# connected the whole time and check every update: one per publish, seq up by exactly one
# each time (bench/lib/churn.py soak). Meanwhile one client after another subscribes and goes
# away in one of the ways clients do: close, half-close then close, reset (SO_LINGER 0),
# close with the answer unread, disconnect in the middle of a request.
#
# Reported: the daemon's open descriptors, threads and VmRSS after warming up and again after
# the cycles (they must come back to where they started, RSS within a page or two), the
# stayers' update counts (equal, with no gap in seq), the daemon's CPU time over the run.
#
# Run as root (mounts a tmpfs):  bench/soak.sh       CYCLES=1000 bench/soak.sh (a quick look)
# Needs: swift, python3. Set USEDSPACE_BIN_DIR to use built binaries.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ $(id -u) == 0 ]] || { echo "error: run as root (mounts a tmpfs)" >&2; exit 1; }
cycles=${CYCLES:-10000}
stayers=${STAYERS:-5}
rate=${RATE:-200}
# shellcheck source=bench/lib/binaries.sh
source "$repo/bench/lib/binaries.sh"
bench_binaries "$repo"
bin=$BENCH_BIN
work=$(mktemp -d /tmp/usedspace-bench-soak.XXXXXX)
mkdir -p "$work/fs" "$work/runtime"
mount -t tmpfs -o size=64m tmpfs "$work/fs"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    umount "$work/fs" 2>/dev/null || true
}
trap cleanup EXIT
unset NOTIFY_SOCKET WATCHDOG_USEC LISTEN_FDS JOURNAL_STREAM USEDSPACE_SOCKET
export XDG_CONFIG_HOME=$work/config
socket=$work/runtime/usedspace.sock
"$bin/usedspaced" --socket "$socket" --state-dir "$work/state" --path "$work/fs" --interval 100ms 2>"$work/daemon.log" &
daemon=$!; pids+=($daemon)
for _ in $(seq 100); do [[ -S $socket ]] && break; sleep 0.05; done

measure() {  # -> "descriptors threads rss_kib cpu_ticks"
    local fds threads rss cpu
    fds=$(find /proc/"$daemon"/fd -mindepth 1 -maxdepth 1 | wc -l)
    threads=$(find /proc/"$daemon"/task -mindepth 1 -maxdepth 1 | wc -l)
    rss=$(awk '/^VmRSS:/ { print $2 }' /proc/"$daemon"/status)
    cpu=$(awk '{ print $14 + $15 }' /proc/"$daemon"/stat)
    echo "$fds $threads $rss $cpu"
}

( while true; do head -c 1048576 /dev/zero >"$work/fs/churn"; sleep 0.15; rm -f "$work/fs/churn"; sleep 0.15; done ) &
writer=$!; pids+=($writer)
# Warm up: the first publishes, one client of each kind, so that what is allocated once is.
python3 "$repo/bench/lib/churn.py" soak "$socket" 50 1 1000 >/dev/null
sleep 1
read -r fds0 threads0 rss0 cpu0 < <(measure)
started=$(date +%s)
echo "# $cycles subscribe/disconnect cycles, $rate a second, with $stayers subscribers staying"
python3 "$repo/bench/lib/churn.py" soak "$socket" "$cycles" "$stayers" "$rate" | tee "$work/soak.txt"
kill "$writer"; wait "$writer" 2>/dev/null || true
sleep 2
read -r fds1 threads1 rss1 cpu1 < <(measure)
elapsed=$(( $(date +%s) - started ))
publishes=$(grep -c ': published ' "$work/daemon.log" || true)
echo
echo "| measure | after warming up | after $cycles cycles |"
echo "| --- | ---: | ---: |"
echo "| open descriptors | $fds0 | $fds1 |"
echo "| threads | $threads0 | $threads1 |"
echo "| VmRSS (KiB) | $rss0 | $rss1 |"
echo
echo "daemon CPU over the run: $(( (cpu1 - cpu0) * 10 )) ms in ${elapsed} s; publishes logged in all: $publishes"
echo "stayers' updates: $(awk '$1 == "stayer_updates" { print $2 }' "$work/soak.txt"), problems: $(awk '$1 == "stayer_problems" { print $2 }' "$work/soak.txt")"
status=0
[[ $fds1 == "$fds0" ]] || { echo "FAIL: descriptors $fds0 -> $fds1"; status=1; }
[[ $threads1 == "$threads0" ]] || { echo "FAIL: threads $threads0 -> $threads1"; status=1; }
[[ $(awk '$1 == "stayer_problems" { print $2 }' "$work/soak.txt") == 0 ]] || { echo "FAIL: a staying subscriber missed an update"; status=1; }
exit $status
