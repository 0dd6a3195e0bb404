# Sourced by bench/startup.sh, bench/startup-variants.sh and bench/daemon.sh: measure commands against a
# reference (df) pair by pair, in rounds, and summarise the per-round ratios.
#
#   bench_rounds OUT_DIR NAME COMMAND [NAME COMMAND ...]
#
# The first NAME/COMMAND pair is the reference. Each round is one `hyperfine -N` run of every
# command (BENCH_WARMUP warm-up runs, then BENCH_RUNS timed runs each), exported to
# OUT_DIR/round-N.json; odd rounds run the commands in the given order, even rounds in
# reverse, so that neither side always runs first. Every round prints each command's ratio
# mean(command) / mean(reference) for that round; after the last round, bench/lib/summarize.py
# prints the median, min and max of those ratios and the commands' absolute means.
# COMMAND is run without a shell (hyperfine -N): quote words with printf %q where needed.
#
# Settings (environment): BENCH_ROUNDS (15), BENCH_WARMUP (20), BENCH_RUNS (200); BENCH_QUICK=1
# makes a smoke run (3 rounds of 5 warm-up and 30 timed runs) unless those are set too.

BENCH_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
    BENCH_ROUNDS=${BENCH_ROUNDS:-3}
    BENCH_WARMUP=${BENCH_WARMUP:-5}
    BENCH_RUNS=${BENCH_RUNS:-30}
else
    BENCH_ROUNDS=${BENCH_ROUNDS:-15}
    BENCH_WARMUP=${BENCH_WARMUP:-20}
    BENCH_RUNS=${BENCH_RUNS:-200}
fi

bench_require() {
    local tool
    for tool in "$@"; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            case $tool in
                hyperfine) echo "error: hyperfine is missing: apt-get install hyperfine" >&2 ;;
                *) echo "error: $tool is missing" >&2 ;;
            esac
            exit 1
        fi
    done
}

# Point the client at a socket that cannot answer, so it samples in-process (direct mode).
# Sets BENCH_RUNTIME_DIR, an empty directory removed on exit by the caller's trap.
bench_direct_mode() {
    BENCH_RUNTIME_DIR=$(mktemp -d /tmp/usedspace-bench-runtime.XXXXXX)
    export XDG_RUNTIME_DIR=$BENCH_RUNTIME_DIR
    export USEDSPACE_SOCKET=$BENCH_RUNTIME_DIR/no-daemon.sock
}

bench_rounds() {
    local out=$1
    shift
    if (( $# < 4 || $# % 2 != 0 )); then
        echo "bench_rounds: need OUT_DIR and at least two NAME COMMAND pairs" >&2
        return 2
    fi
    local -a names=() commands=()
    while (( $# )); do
        names+=("$1")
        commands+=("$2")
        shift 2
    done
    local count=${#names[@]}
    mkdir -p "$out"
    echo "# ${BENCH_ROUNDS} rounds x ${count} commands, each ${BENCH_WARMUP} warm-up + ${BENCH_RUNS} timed runs; reference: ${names[0]}"
    echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    local round i
    local -a order args
    for (( round = 1; round <= BENCH_ROUNDS; round++ )); do
        order=()
        if (( round % 2 == 1 )); then
            for (( i = 0; i < count; i++ )); do order+=("$i"); done
        else
            for (( i = count - 1; i >= 0; i-- )); do order+=("$i"); done
        fi
        args=()
        for i in "${order[@]}"; do
            args+=(--command-name "${names[$i]}" "${commands[$i]}")
        done
        # hyperfine's warnings (statistical outliers, on every busy machine) go to round-N.log.
        if ! hyperfine -N --warmup "$BENCH_WARMUP" --runs "$BENCH_RUNS" --style none \
            --export-json "$out/round-$round.json" "${args[@]}" >/dev/null 2>"$out/round-$round.log"; then
            cat "$out/round-$round.log" >&2
            echo "error: hyperfine failed in round $round" >&2
            return 1
        fi
        python3 "$BENCH_LIB_DIR/summarize.py" --round "$round/$BENCH_ROUNDS" \
            --reference "${names[0]}" "${names[@]/#/--order=}" "$out/round-$round.json"
    done
    echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    local -a files=()
    for (( round = 1; round <= BENCH_ROUNDS; round++ )); do files+=("$out/round-$round.json"); done
    python3 "$BENCH_LIB_DIR/summarize.py" --reference "${names[0]}" "${names[@]/#/--order=}" "${files[@]}" \
        | tee "$out/summary.md"
}

# bench_build_client SOURCE_DIR: builds the client as shipped (`make client`: Embedded Swift,
# static, against musl) into SOURCE_DIR/.build-bench-lean and sets `client` to its path.
bench_build_client() {
    local source_dir=$1
    bench_require swift make
    echo "# building the release client as shipped into $source_dir/.build-bench-lean"
    make -C "$source_dir" --no-print-directory client SCRATCH=.build-bench-lean >/dev/null || {
        echo "error: the release build failed; run: make -C $source_dir client SCRATCH=.build-bench-lean" >&2
        exit 1
    }
    client=$source_dir/.build-bench-lean/bin/usedspace
}
