# Sourced by the daemon benchmarks (daemon.sh, fanout.sh, idle.sh): which usedspace and
# usedspaced to measure.
#
#   bench_binaries REPO     sets BENCH_BIN to a directory holding both
#
# USEDSPACE_BIN_DIR names already built binaries; otherwise they are built as shipped
# (`make build`: Embedded Swift, the client against musl) into REPO/.build-bench-lean.

bench_binaries() {
    local repo=$1
    if [[ -n ${USEDSPACE_BIN_DIR:-} ]]; then
        BENCH_BIN=$USEDSPACE_BIN_DIR
        return
    fi
    echo "# building release binaries as shipped into $repo/.build-bench-lean"
    make -C "$repo" --no-print-directory build SCRATCH=.build-bench-lean >/dev/null
    BENCH_BIN=$repo/.build-bench-lean/bin
}
