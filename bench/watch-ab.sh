#!/usr/bin/env bash
# Two builds of `usedspace watch` side by side: the same daemon, the same updates, the same
# minute, so that what one costs more than the other per update is the build's, not the
# machine's. E.g. the shipped client (musl) against one on glibc:
#
#   sudo bench/watch-ab.sh .build-make/bin /path/to/other/bin [SECONDS] [INTERVAL]
#
# The daemon of the first directory watches a 1 GiB tmpfs at INTERVAL (default 1s, a
# publish at every sample: bench/lib/writer.py appends 256 KiB a second); both watches
# (`--format i3bar`) subscribe to it. Reported: each watch's CPU time over SECONDS (default
# 90; /proc/PID/task/*/schedstat), the lines it wrote, its page faults meanwhile and VmRSS
# at the end, and the ratio first / second. Run as root (a tmpfs).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ $# -ge 2 ]] || { echo "usage: $0 FIRST_BIN_DIR SECOND_BIN_DIR [SECONDS] [INTERVAL]" >&2; exit 2; }
first=$(cd "$1" && pwd) second=$(cd "$2" && pwd) duration=${3:-90} interval=${4:-1s}
[[ $(id -u) == 0 ]] || { echo "error: run as root (a tmpfs)" >&2; exit 1; }
for binary in "$first/usedspaced" "$first/usedspace" "$second/usedspace"; do
    [[ -x $binary ]] || { echo "error: no $binary" >&2; exit 1; }
done
work=$(mktemp -d /tmp/usedspace-watch-ab.XXXXXX)
mkdir -p "$work/fs" "$work/runtime" "$work/state"
pids=()
cleanup() {
    kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    mountpoint -q "$work/fs" && umount "$work/fs"
    rm -rf "$work"
}
trap cleanup EXIT
mount -t tmpfs -o size=1g tmpfs "$work/fs"
export XDG_RUNTIME_DIR=$work/runtime
unset USEDSPACE_SOCKET NOTIFY_SOCKET LISTEN_FDS
"$first/usedspaced" --path "$work/fs" --interval "$interval" --state-dir "$work/state" 2>/dev/null &
daemon=$!; pids+=("$daemon")
for _ in $(seq 100); do [[ -S $work/runtime/usedspace.sock ]] && break; sleep 0.1; done
"$first/usedspace" watch --format i3bar --path "$work/fs" >"$work/first.out" & a=$!; pids+=("$a")
"$second/usedspace" watch --format i3bar --path "$work/fs" >"$work/second.out" & b=$!; pids+=("$b")
python3 "$repo/bench/lib/writer.py" "$work/fs/file" & pids+=("$!")
sleep 5
cpu() { awk '{ns += $1} END {print ns}' /proc/"$1"/task/*/schedstat; }
faults() { awk '{print $10}' /proc/"$1"/stat; }
a0=$(cpu $a) b0=$(cpu $b) d0=$(cpu $daemon) fa0=$(faults $a) fb0=$(faults $b)
la0=$(wc -l <"$work/first.out") lb0=$(wc -l <"$work/second.out")
sleep "$duration"
a1=$(cpu $a) b1=$(cpu $b) d1=$(cpu $daemon) fa1=$(faults $a) fb1=$(faults $b)
la1=$(wc -l <"$work/first.out") lb1=$(wc -l <"$work/second.out")
rss() { awk '/^VmRSS/ {print $2}' /proc/"$1"/status; }
echo "# $duration s, the daemon sampling every $interval, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| watch | CPU (µs) | lines | page faults | VmRSS (KiB) |\n| --- | ---: | ---: | ---: | ---: |\n'
printf '| %s | %d | %d | %d | %s |\n' "$first" $(((a1 - a0) / 1000)) $((la1 - la0)) $((fa1 - fa0)) "$(rss $a)"
printf '| %s | %d | %d | %d | %s |\n' "$second" $(((b1 - b0) / 1000)) $((lb1 - lb0)) $((fb1 - fb0)) "$(rss $b)"
echo "first / second CPU: $(python3 -c "print(f'{($a1 - $a0) / ($b1 - $b0):.2f}')"); the daemon: $(((d1 - d0) / 1000)) µs"
