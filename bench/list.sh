#!/usr/bin/env bash
# `usedspace list` against `df -h` and `duf` on this machine's mounts, in the same runs.
#
# What it measures: wall time of `usedspace list` (the table, no daemon answering) and
# `usedspace list --format json`, as ratios against `df -h` (every filesystem df shows) and
# beside `duf` (its default table), all in the same hyperfine rounds. With
# BENCH_BASELINE_BIN=path/to/an/older/usedspace, that client's `status` runs beside them (the
# cost of one filesystem). It builds the release client as shipped (`make client`: Embedded
# Swift, static, musl) into .build-bench-lean, then runs BENCH_ROUNDS rounds of
# `hyperfine -N` (bench/lib/rounds.sh: alternating order, one ratio per command per round)
# and prints every round's ratios, then the median, min and max ratio and the absolute
# means. Targets (docs/PERFORMANCE.md): `usedspace list` at most 0.8x `df -h`, and ahead of
# `duf` (a ratio below duf's).
#
# Output goes to a pipe in hyperfine (no terminal): the table is not fitted or coloured,
# which is the same work minus a winsize ioctl. The mounts measured are whatever the machine
# has; the summary records them (df -h's output) beside the figures.
#
# Run:   bench/list.sh                         (about 20 s on 2 cores once built)
#        BENCH_QUICK=1 bench/list.sh           (smoke run: 3 short rounds)
#        USEDSPACE_BIN=path/to/usedspace bench/list.sh   (measure that binary, no build)
# df -h stats every mount and waits forever on one that hangs (a dead NFS or FUSE server):
# on such a machine, run it as root in a namespace of its own without that mount:
#        unshare -m --propagation private sh -c 'umount -l /the/hung/mount; bench/list.sh'
# Needs: swift, make, musl-dev, python3, hyperfine and duf (apt-get install hyperfine duf).
# Writes: the hyperfine JSON of every round, mounts.txt and summary.md into BENCH_OUT
# (default: a new directory under /tmp, printed at the end).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib/rounds.sh
source "$repo/bench/lib/rounds.sh"
bench_require hyperfine python3 duf

if [[ -n ${USEDSPACE_BIN:-} ]]; then
    client=$USEDSPACE_BIN
else
    bench_build_client "$repo"
fi
[[ -x $client ]] || { echo "error: no client at $client" >&2; exit 1; }

out=${BENCH_OUT:-$(mktemp -d /tmp/usedspace-bench-list.XXXXXX)}
mkdir -p "$out"
bench_direct_mode
trap 'rm -rf "$BENCH_RUNTIME_DIR"' EXIT

# Every command must succeed as it will be timed (hyperfine -N stops on a failure anyway).
"$client" list >/dev/null || { echo "error: '$client list' failed" >&2; exit 1; }
duf >/dev/null
{ df -h; echo; "$client" list; } > "$out/mounts.txt"
echo "# client: $client ($(stat -c %s "$client") bytes); $(nproc) cores; $(uptime)"
cat "$out/mounts.txt"

q_client=$(printf '%q' "$client")
baseline=()
if [[ -n ${BENCH_BASELINE_BIN:-} ]]; then
    baseline=("baseline status" "$(printf '%q' "$BENCH_BASELINE_BIN") status")
fi
bench_rounds "$out" \
    "df -h" "df -h" \
    "usedspace list" "$q_client list" \
    "usedspace list --format json" "$q_client list --format json" \
    "duf" "duf" \
    "${baseline[@]}"
echo
echo "# results: $out"
