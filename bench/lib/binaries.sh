# Sourced by the daemon benchmarks (daemon.sh, fanout.sh, idle.sh): which usedspace and
# usedspaced to measure.
#
#   bench_binaries REPO     sets BENCH_BIN to a directory holding both
#
# USEDSPACE_BIN_DIR names already built binaries; otherwise they are built as shipped (the
# release build of `make`: USEDSPACE_EMBEDDED=1, Package.swift) into REPO/.build-bench-lean.

bench_binaries() {
    local repo=$1
    if [[ -n ${USEDSPACE_BIN_DIR:-} ]]; then
        BENCH_BIN=$USEDSPACE_BIN_DIR
        return
    fi
    echo "# building release binaries as shipped into $repo/.build-bench-lean"
    (cd "$repo" && USEDSPACE_EMBEDDED=1 swift build -c release --scratch-path .build-bench-lean >/dev/null)
    BENCH_BIN=$repo/.build-bench-lean/release
}
