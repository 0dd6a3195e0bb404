#!/usr/bin/env bash
# Regenerates link/usedspace.order and link/usedspaced.order, the functions a run of each
# shipped binary executes, in the order first met. The lean link (Package.swift) puts them
# first and together, so that the kernel's fault-around (64 KiB of the file mapped per page
# fault) maps hot code rather than the cold code beside it. Names that no longer exist are
# ignored when linking: a stale list costs memory, never correctness. Rerun it after changing
# the code or the toolchain (docs/PERFORMANCE.md shows the effect).
#
# Usage: link/update-order.sh   (needs valgrind, socat, python3, objcopy; about 3 minutes once
# built; run it as root, so that the watched directory is a small tmpfs whose writes look like
# the fast fills the daemon detects). Builds the lean binaries without a list into
# .build-order and runs them under callgrind: the client's commands in direct mode and against
# a daemon, `watch` in three formats while the watched directory fills and empties; the daemon
# started, asked every request, subscribed to, publishing, with clients coming and going
# (bench/lib/churn.py), reloaded and stopped. Then relink (`make`): SwiftPM does not notice a
# changed list.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
for tool in swift valgrind socat python3 objcopy; do
    command -v "$tool" >/dev/null || { echo "error: $tool is missing" >&2; exit 1; }
done
scratch=$repo/.build-order
echo "# building the lean binaries without a list into $scratch"
USEDSPACE_LINK_ORDER=0 make -C "$repo" --no-print-directory build SCRATCH="$scratch" >/dev/null

work=$(mktemp -d /tmp/usedspace-order.XXXXXX)
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    mountpoint -q "$work/watched" && umount -l "$work/watched"
    rm -rf "$work"
}
trap cleanup EXIT
# valgrind 3.19 cannot read DWARF 5: the binaries run without debug information (the names
# come from the symbol table).
for program in usedspace usedspaced; do objcopy --strip-debug "$scratch/bin/$program" "$work/$program"; done
mkdir -p "$work/runtime" "$work/state" "$work/watched" "$work/cg"
[[ $(id -u) == 0 ]] && mount -t tmpfs -o size=64m tmpfs "$work/watched"
export XDG_RUNTIME_DIR=$work/runtime
unset USEDSPACE_SOCKET NOTIFY_SOCKET WATCHDOG_USEC LISTEN_FDS JOURNAL_STREAM
socket=$work/runtime/usedspace.sock
step=0
# traced NAME COMMAND...: execs COMMAND under callgrind (run it in a subshell or in the
# background), its profile numbered by step (the list takes the functions of earlier
# profiles first: a bar's watch, then the rest).
traced() {
    local name=$1; shift
    exec valgrind --tool=callgrind --demangle=no --compress-strings=no --dump-line=no \
        --callgrind-out-file="$work/cg/$(printf %02d "$step")-$name.%p" --log-file="$work/cg/$name.log" "$@"
}
# stop PID: SIGTERM, as a bar or systemd stops it; a process still running 30 s later (slow
# under valgrind) has its profile dumped, then is killed.
stop() {
    local _
    kill -TERM "$1" 2>/dev/null || return 0
    for _ in $(seq 300); do kill -0 "$1" 2>/dev/null || { wait "$1" || true; return 0; }; sleep 0.1; done
    callgrind_control -d "$1" >/dev/null 2>&1 || true
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" || true
}
wait_for_daemon() {
    local _
    for _ in $(seq 600); do
        [[ $(echo ping | socat -t 5 - "UNIX-CONNECT:$socket" 2>/dev/null) == *pong* ]] && return 0
        sleep 0.1
    done
    echo "error: the daemon does not answer" >&2; exit 1
}
fill() { # SECONDS: 1 MiB written and removed every 200 ms in the watched directory
    local end=$(( $(date +%s) + $1 ))
    while (( $(date +%s) < end )); do
        head -c 1048576 /dev/zero >"$work/watched/fill"; sleep 0.1; rm -f "$work/watched/fill"; sleep 0.1
    done
}
watch_for() { # SECONDS FORMAT: a traced watch of the watched directory, stopped as a bar stops it
    step=$((step + 1))
    traced "watch-$2" "$work/usedspace" watch --format "$2" --path "$work/watched" >/dev/null 2>&1 &
    local pid=$!
    fill "$1"
    stop "$pid"
}
client=$work/usedspace
template='{free:iec} free of {total:iec}'

echo "# the client against a daemon"
"$scratch/bin/usedspaced" --state-dir "$work/state" --path "$work/watched" --interval 100ms 2>/dev/null &
pids+=($!)
wait_for_daemon
watch_for 20 i3bar
watch_for 5 json
watch_for 5 text
for args in "status" "status --format json" "status --details" "status --format i3bar"; do
    # shellcheck disable=SC2086
    step=$((step + 1)); (traced status "$client" $args >/dev/null) || true
done
stop "${pids[-1]}"; rm -f "$socket"

echo "# the client in direct mode"
step=$((step + 1))
(traced status "$client" status >/dev/null) || true
(traced status "$client" status --details >/dev/null) || true
(traced status "$client" status --format json >/dev/null) || true
(traced status "$client" status --template "$template" >/dev/null) || true
(traced list "$client" list >/dev/null) || true
(traced list "$client" list --all >/dev/null) || true
(traced version "$client" --version >/dev/null) || true
(traced help "$client" --help >/dev/null) || true
watch_for 5 i3bar

echo "# the daemon"
step=$((step + 1))
traced daemon "$work/usedspaced" --state-dir "$work/state" --path "$work/watched" --interval 100ms 2>/dev/null &
daemon=$!; pids+=($daemon)
wait_for_daemon
# Two subscribers, each a process group of its own (cleanup ends the whole pipeline).
for request in "subscribe format=json" subscribe; do
    setsid bash -c '(echo "$1"; exec sleep 1000) | socat -t 1000 - "UNIX-CONNECT:$2" >/dev/null' _ "$request" "$socket" &
    pids+=($!)
done
"$scratch/bin/usedspace" watch --format i3bar --path "$work/watched" >/dev/null 2>&1 &
pids+=($!)
for request in hello version ping help status 'status format=json' 'status details' \
    "status path=$work/watched" 'status path=relative' 'status format=xml' 'subscribe format=nope' bogus ''; do
    echo "$request" | socat -t 5 - "UNIX-CONNECT:$socket" >/dev/null 2>&1 || true
done
fill 60 &
python3 "$repo/bench/lib/churn.py" clients "$socket" "$scratch/bin" "$work/watched" 3 >/dev/null 2>&1 || true
wait $! || true
kill -HUP "$daemon"; sleep 2
fill 5
stop "$daemon"

echo "# writing the lists"
for program in usedspace usedspaced; do nm -n "$work/$program" >"$work/$program.nm"; done
python3 - "$work" "$here" <<'PY'
import bisect, os, re, sys
work, out = sys.argv[1], sys.argv[2]
cg = os.path.join(work, "cg")
# The lists name functions: nm's, for the addresses callgrind has no name for (local and
# unnamed functions), and every variant of a libc string function glibc picks by CPU (an
# IFUNC: valgrind's CPU is not the machine's).
variant = re.compile(r"^(__\w+?)_(sse2|ssse3|sse4_1|sse4_2|avx|avx2|avx512|evex)")
# First, what every run of a static glibc client (CLIENT_LIBC=glibc) runs natively but not as
# valgrind shows it: its set-up of the vDSO (valgrind has none), memset, memmove and strcmp
# (valgrind's own); found with `perf record -e page-faults -d`. musl's are plain functions,
# which callgrind sees.
native = {
    "usedspace": ["_dl_non_dynamic_init", "_dl_new_object", "_dl_add_to_namespace_list", "_dl_setup_hash",
                  "_dl_lookup_symbol_x", "do_lookup_x", "check_match", "_dl_name_match_p", "__strcmp_avx2",
                  "__memset_avx2_unaligned_erms", "__memmove_avx_unaligned_erms"],
    "usedspaced": [],
}
for binary in ("usedspace", "usedspaced"):
    symbols = []
    for line in open(os.path.join(work, binary + ".nm")):
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTwWiI":
            symbols.append((int(fields[0], 16), fields[2]))
    symbols.sort()
    addresses = [a for a, _ in symbols]
    names, seen = [], set()
    def add(name):
        if name in seen:
            return
        seen.add(name)
        names.append(name)
        match = variant.match(name)
        if match:
            for _, sibling in symbols:
                if sibling.startswith(match.group(1) + "_") and variant.match(sibling):
                    add(sibling)
    for name in native[binary]:
        add(name)
    for profile in sorted(f for f in os.listdir(cg) if not f.endswith(".log")):
        current = None
        for line in open(os.path.join(cg, profile), errors="replace"):
            if line.startswith("ob="):
                current = os.path.basename(line[3:].strip())
            elif line.startswith("fn=") and current == binary:
                name = re.sub(r"'\d+$", "", line[3:].strip())
                if name.startswith("0x"):
                    i = bisect.bisect_right(addresses, int(name, 16)) - 1
                    if i < 0:
                        continue
                    name = symbols[i][1]
                add(name)
    with open(os.path.join(out, binary + ".order"), "w") as f:
        f.writelines(name + "\n" for name in names)
    print(f"{binary}.order: {len(names)} functions")
PY
