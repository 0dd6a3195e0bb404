#!/usr/bin/env bash
# Fan-out: one publish to many `watch` subscribers.
#
# Starts usedspaced on a 100 MiB tmpfs (sampling every 100 ms), connects SUBSCRIBERS (1000)
# subscribers with bench/fanout.c (a load generator of its own: epoll, CLOCK_MONOTONIC),
# then triggers ROUNDS (20) publishes by writing and removing a 2 MB file. Reported:
#   - lost updates (a subscriber that did not get a round's update within 10 s),
#   - delivery spread: for each update and subscriber, the time from the first subscriber's
#     receipt of that update to this subscriber's receipt (p50, p99, max): how long the
#     daemon takes to reach everyone once it publishes. Target: p99 <= 20 ms.
#   - time from the file change to receipt (includes waiting for the next sample),
#   - the daemon's VmRSS before and after the subscribers connect. Target: <= 8 KiB each.
#
# Run as root (mounts a tmpfs):  bench/fanout.sh      SUBSCRIBERS=2000 bench/fanout.sh
# Needs: swift, gcc. Set USEDSPACE_BIN_DIR to use built binaries.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ $(id -u) == 0 ]] || { echo "error: run as root (mounts a tmpfs)" >&2; exit 1; }
subscribers=${SUBSCRIBERS:-1000}
rounds=${ROUNDS:-20}
# shellcheck source=bench/lib/binaries.sh
source "$repo/bench/lib/binaries.sh"
bench_binaries "$repo"
bin=$BENCH_BIN
work=$(mktemp -d /tmp/usedspace-bench-fanout.XXXXXX)
mkdir -p "$work/fs" "$work/runtime"
gcc -O2 -Wall -o "$work/fanout" "$repo/bench/fanout.c"
mount -t tmpfs -o size=100m tmpfs "$work/fs"
daemon=""
cleanup() { [[ -n $daemon ]] && kill "$daemon" 2>/dev/null; wait 2>/dev/null || true; umount "$work/fs" 2>/dev/null || true; }
trap cleanup EXIT
unset NOTIFY_SOCKET WATCHDOG_USEC LISTEN_FDS JOURNAL_STREAM
"$bin/usedspaced" --socket "$work/runtime/usedspace.sock" --state-dir "$work/state" --path "$work/fs" \
    --interval 100ms --max-clients $((subscribers + 16)) 2>"$work/daemon.log" &
daemon=$!
for _ in $(seq 100); do [[ -S $work/runtime/usedspace.sock ]] && break; sleep 0.05; done
sleep 1
"$work/fanout" "$work/runtime/usedspace.sock" "$daemon" "$subscribers" "$rounds" "$work/fs/trigger" 2000000 | tee "$work/result.txt"
python3 - "$work/result.txt" <<'EOP'
import sys
values = dict(line.split() for line in open(sys.argv[1]) if len(line.split()) == 2)
n = int(values["subscribers"]); before = int(values["rss_before_kib"]); after = int(values["rss_after_kib"])
print()
print("| measure | value | target |")
print("| --- | ---: | ---: |")
print(f"| subscribers x publishes | {n} x {values['rounds']} | 1000 x … |")
print(f"| lost updates | {values['lost']} | 0 |")
print(f"| delivery spread p50 / p99 / max | {float(values['spread_p50_ms']):.2f} / {float(values['spread_p99_ms']):.2f} / {float(values['spread_max_ms']):.2f} ms | p99 <= 20 ms |")
print(f"| file change to receipt p50 / p99 (includes the 100 ms sample interval) | {float(values['from_change_p50_ms']):.1f} / {float(values['from_change_p99_ms']):.1f} ms | — |")
print(f"| daemon VmRSS before / after subscribing | {before} / {after} KiB | — |")
print(f"| growth per subscriber | {(after - before) / n:.2f} KiB | <= 8 KiB |")
EOP
