# Sourced by the daemon benchmarks (daemon.sh, fanout.sh, idle.sh): which usedspace and
# usedspaced to measure.
#
#   bench_binaries REPO     sets BENCH_BIN to a directory holding both
#
# USEDSPACE_BIN_DIR names already built binaries; otherwise they are built in release mode,
# linked as shipped (whatever USEDSPACE_CLIENT_LINKING or USEDSPACE_DAEMON_LINKING say), into
# REPO/.build-bench-static.

bench_binaries() {
    local repo=$1
    if [[ -n ${USEDSPACE_BIN_DIR:-} ]]; then
        BENCH_BIN=$USEDSPACE_BIN_DIR
        return
    fi
    echo "# building release binaries into $repo/.build-bench-static"
    # Relinked every time: SwiftPM does not notice a new Sources/usedspaced/Linking/hot-symbols.txt.
    rm -f "$repo/.build-bench-static/release/usedspaced"
    (cd "$repo" && env -u USEDSPACE_CLIENT_LINKING -u USEDSPACE_DAEMON_LINKING \
        swift build -c release --scratch-path .build-bench-static >/dev/null)
    BENCH_BIN=$repo/.build-bench-static/release
}
