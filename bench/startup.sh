#!/usr/bin/env bash
# Start-up of `usedspace status` in direct mode (no daemon answers), against `df -h ~`.
#
# What it measures: wall time of the one-shot client, `usedspace status`, `status --details`,
# `status --format json` and `status` with a template (`--template '{free:iec} free of
# {total:iec}'`: parsed, and sizes as df -h writes them), as ratios against `df -h $HOME`
# measured in the same hyperfine run. With BENCH_BASELINE_BIN=path/to/an/older/usedspace,
# that client's `status` runs in the same rounds too, for "no regression" claims. It builds
# the release client as shipped (`make client`: Embedded Swift, static, musl) into
# .build-bench-lean, then runs BENCH_ROUNDS rounds; each round is one `hyperfine -N` run of
# all four commands (20 warm-up + 200 timed runs each), in alternating order, and gives one
# ratio mean(usedspace)/mean(df) per command. It prints every round's ratios, then the median,
# min and max ratio and the absolute means. The target (docs/PERFORMANCE.md) is a median
# ratio of at most 0.6 for `usedspace status`.
#
# The client is pointed at an empty temporary XDG_RUNTIME_DIR and a USEDSPACE_SOCKET there that
# nothing listens on, so it never reaches a daemon and samples in-process.
#
# Run:   bench/startup.sh                      (about 10 s on 2 cores once built)
#        BENCH_QUICK=1 bench/startup.sh        (smoke run: 3 short rounds)
#        BENCH_ROUNDS=30 bench/startup.sh      (more rounds on a noisy machine)
#        USEDSPACE_BIN=path/to/usedspace bench/startup.sh   (measure that binary, no build)
#        BENCH_BASELINE_BIN=path/to/old/usedspace bench/startup.sh   (and that one's status beside it)
#        BENCH_CLIENT_SOURCE=dir bench/startup.sh  (build the client from that copy of the package,
#                                                   one with `make client`, e.g. a `git archive`)
# Needs: a Swift toolchain that builds the lean binaries (make says when one cannot: swift.org's
# 6.3 does), make, musl-dev, python3, hyperfine (apt-get install hyperfine).
# Writes: the hyperfine JSON of every round and summary.md into BENCH_OUT (default: a new
# directory under /tmp, printed at the end).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib/rounds.sh
source "$repo/bench/lib/rounds.sh"
bench_require hyperfine python3

if [[ -n ${USEDSPACE_BIN:-} ]]; then
    client=$USEDSPACE_BIN
else
    bench_build_client "${BENCH_CLIENT_SOURCE:-$repo}"
fi
[[ -x $client ]] || { echo "error: no client at $client" >&2; exit 1; }

out=${BENCH_OUT:-$(mktemp -d /tmp/usedspace-bench-startup.XXXXXX)}
bench_direct_mode
trap 'rm -rf "$BENCH_RUNTIME_DIR"' EXIT

# Make sure this really is direct mode before timing it.
if ! "$client" status --format json | grep -q '"source":"direct"'; then
    echo "error: '$client status --format json' did not report \"source\":\"direct\"" >&2
    exit 1
fi

q_client=$(printf '%q' "$client")
q_home=$(printf '%q' "$HOME")
q_template=$(printf '%q' '{free:iec} free of {total:iec}')
echo "# client: $client ($(stat -c %s "$client") bytes); HOME=$HOME; $(nproc) cores"
baseline=()
if [[ -n ${BENCH_BASELINE_BIN:-} ]]; then
    [[ -x $BENCH_BASELINE_BIN ]] || { echo "error: no client at BENCH_BASELINE_BIN=$BENCH_BASELINE_BIN" >&2; exit 1; }
    echo "# baseline: $BENCH_BASELINE_BIN ($(stat -c %s "$BENCH_BASELINE_BIN") bytes)"
    baseline=("baseline status" "$(printf '%q' "$BENCH_BASELINE_BIN") status")
fi
bench_rounds "$out" \
    "df -h ~" "df -h $q_home" \
    "usedspace status" "$q_client status" \
    "usedspace status --details" "$q_client status --details" \
    "usedspace status --format json" "$q_client status --format json" \
    "usedspace status --template" "$q_client status --template $q_template" \
    "${baseline[@]}"
echo
echo "# results: $out"
