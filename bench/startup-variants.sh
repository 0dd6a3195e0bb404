#!/usr/bin/env bash
# Why the client parses its command line by hand and links with -static-executable: start-up
# of the same tiny `status` built several ways, against `df -h ~`, measured pair by pair.
#
# What it measures: the wall time of each of these, as a ratio against `df -h $HOME` measured in
# the same hyperfine run (rounds as in bench/startup.sh, see bench/lib/rounds.sh):
#   - the real client, `usedspace status` (direct mode), built with each
#     USEDSPACE_CLIENT_LINKING: static-executable (the normal build's default), static-stdlib, dynamic;
#   - the variants in bench/variants (their own package), each built dynamic, with
#     --static-swift-stdlib and with -Xswiftc -static-executable:
#       plain       statvfs of $HOME and one line out, Glibc only, no argument parsing;
#       argparser   the same behind swift-argument-parser (`status --path --details --format`);
#       foundation  the same through Foundation (ProcessInfo, FileManager, String(format:)).
# Every command gets the arguments `status`. It also prints each binary's size (ls -l).
#
# Run:   bench/startup-variants.sh                 (about 1 min on 2 cores once built; the
#                                                  first build of all nine variants ~1 min more)
#        BENCH_QUICK=1 bench/startup-variants.sh   (smoke run: 3 short rounds)
#        BENCH_ROUNDS=30 bench/startup-variants.sh (more rounds on a noisy machine)
# Needs: swift (6.1 or later: bench/variants/Package.swift), python3, hyperfine (apt-get install hyperfine), and
# swift-argument-parser resolvable (from https://github.com/apple/swift-argument-parser).
# BENCH_CLIENT_SOURCE=dir builds the client from that copy of the package instead of this
# work tree (e.g. a `git archive` of a commit while the work tree does not build).
# Builds into .build-bench-{static,static-stdlib,dynamic} (the client, git-ignored) and
# BENCH_VARIANTS_BUILD (default /tmp/usedspace-bench-variants/<linking>). Writes the hyperfine
# JSON of every round and summary.md into BENCH_OUT (default: a new directory under /tmp).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib/rounds.sh
source "$repo/bench/lib/rounds.sh"
bench_require hyperfine python3 swift

client_source=${BENCH_CLIENT_SOURCE:-$repo}
variants_build=${BENCH_VARIANTS_BUILD:-/tmp/usedspace-bench-variants}
linkings=(static-executable static-stdlib dynamic)
variants=(plain argparser foundation)

build() {
    local log
    log=$(mktemp /tmp/usedspace-bench-build.XXXXXX)
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        echo "error: build failed: $*" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
}

client_scratch() {
    case $1 in
        static-executable) echo .build-bench-static ;;
        *) echo ".build-bench-$1" ;;
    esac
}

for linking in "${linkings[@]}"; do
    echo "# building the client, USEDSPACE_CLIENT_LINKING=$linking"
    (cd "$client_source" && build env USEDSPACE_CLIENT_LINKING="$linking" \
        swift build -c release --product usedspace --scratch-path "$(client_scratch "$linking")")
done
if cmp -s "$client_source/.build-bench-static/release/usedspace" "$client_source/.build-bench-dynamic/release/usedspace"; then
    echo "error: the static-executable and dynamic clients are the same file: does $client_source/Package.swift read USEDSPACE_CLIENT_LINKING?" >&2
    exit 1
fi
for linking in "${linkings[@]}"; do
    case $linking in
        static-executable) flags=(-Xswiftc -static-executable) ;;
        static-stdlib) flags=(--static-swift-stdlib) ;;
        dynamic) flags=() ;;
    esac
    echo "# building the variants, $linking"
    (cd "$repo/bench/variants" && build swift build -c release ${flags[@]+"${flags[@]}"} \
        --scratch-path "$variants_build/$linking")
done

out=${BENCH_OUT:-$(mktemp -d /tmp/usedspace-bench-variants-run.XXXXXX)}
bench_direct_mode
trap 'rm -rf "$BENCH_RUNTIME_DIR"' EXIT

pairs=("df -h ~" "df -h $(printf '%q' "$HOME")")
echo
echo "# binaries (ls -l size in bytes, unstripped as built)"
for linking in "${linkings[@]}"; do
    binary=$client_source/$(client_scratch "$linking")/release/usedspace
    if ! "$binary" status --format json | grep -q '"source":"direct"'; then
        echo "error: $binary status --format json did not report \"source\":\"direct\"" >&2
        exit 1
    fi
    printf '%12s  %s\n' "$(stat -c %s "$binary")" "usedspace ($linking)"
    pairs+=("usedspace ($linking)" "$(printf '%q' "$binary") status")
done
for variant in "${variants[@]}"; do
    for linking in "${linkings[@]}"; do
        binary=$variants_build/$linking/release/variant-$variant
        "$binary" status >/dev/null
        printf '%12s  %s\n' "$(stat -c %s "$binary")" "$variant ($linking)"
        pairs+=("$variant ($linking)" "$(printf '%q' "$binary") status")
    done
done
echo
bench_rounds "$out" "${pairs[@]}"
echo
echo "# results: $out"
