#!/usr/bin/env bash
# Fails when hot-symbols.txt has gone stale: when too many of the project's own functions and
# data it lists (names mangled in usedspace's modules; the standard library's change only
# with the toolchain) are not in the release usedspaced any more, renamed or removed. The
# linker ignores such names silently, and what they stood for lands among the cold code,
# costing resident memory (bench/daemon.sh, part 2) without any other sign. CI runs this on
# the release build; regenerate the list with update-hot-symbols.sh when it fails. (It cannot
# see a new hot function that the list lacks: that takes the profile the update script runs.)
#
# Usage: Sources/usedspaced/Linking/check-hot-symbols.sh [USEDSPACED] [MINIMUM_PERCENT]
#   USEDSPACED: a release build of the daemon (default .build-make/release/usedspaced, what `make` builds)
#   MINIMUM_PERCENT: the share of listed names that must exist (default 90)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
binary=${1:-$repo/.build-make/release/usedspaced}
minimum=${2:-90}
list=$here/hot-symbols.txt
[[ -x $binary ]] || { echo "error: no daemon at $binary; build it: swift build -c release --product usedspaced" >&2; exit 2; }
command -v nm >/dev/null || { echo "error: nm is missing (binutils)" >&2; exit 2; }
symbols=$(mktemp)
trap 'rm -f "$symbols"' EXIT
nm --defined-only "$binary" | awk '{ print $NF }' | sort -u >"$symbols"
[[ -s $symbols ]] || { echo "error: $binary has no symbol table (stripped?); check an unstripped build" >&2; exit 2; }
ours=$(mktemp)
trap 'rm -f "$symbols" "$ours"' EXIT
grep -E '^\$s(13UsedSpaceCore|15UsedSpaceSystem|15UsedSpaceDaemon|10usedspaced)' "$list" | sort -u >"$ours"
listed=$(wc -l <"$ours")
(( listed > 0 )) || { echo "error: $list lists none of the project's own symbols" >&2; exit 1; }
present=$(comm -12 "$ours" "$symbols" | wc -l)
percent=$(( present * 100 / listed ))
echo "hot-symbols.txt: $present of the $listed own names it lists are in $(basename "$binary") ($percent%, at least $minimum% wanted)"
if (( percent < minimum )); then
    echo "error: the symbol ordering list is stale; regenerate it: Sources/usedspaced/Linking/update-hot-symbols.sh" >&2
    comm -23 "$ours" "$symbols" | sed -n '1,5s/^/  missing: /p' >&2
    exit 1
fi
