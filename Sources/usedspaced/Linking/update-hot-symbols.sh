#!/usr/bin/env bash
# Regenerates hot-symbols.txt, the symbol ordering file usedspaced is linked with (see the
# comment at the top of Package.swift): the functions and data of usedspaced's own binary
# that a daemon's run touches, so that the linker (lld --symbol-ordering-file) puts them
# next to each other.
#
# Why: the kernel maps file-backed pages 64 KiB at a time around a page fault (fault-around),
# so the daemon's resident memory is about 64 KiB per distinct stretch of its binary that it
# ever touches. Packed together, the code and data a run needs take about 25 fewer such
# stretches (1.5 MB, bench/daemon.sh).
#
# How: runs usedspaced (release build) under valgrind's lackey tool through what a daemon
# does (start, restore its state, sample, publish, serve every request, two subscribers, the
# client, clients that come and go, reloads by signal and by request, systemd's socket
# activation, notify, watchdog and journal, stop), records
# every instruction of its binary that is executed and every 64-byte line that is read or
# written, and names the functions and data they belong to. Names that no longer exist when
# linking are ignored, so a stale file only costs memory: rerun this after changing the
# daemon (a renamed or new function lands among the cold code) or the Swift toolchain.
#
# Usage: Sources/usedspaced/Linking/update-hot-symbols.sh   (needs valgrind, socat, python3;
# systemd-socket-activate is used when present). Takes about 4 minutes. No root needed.
# Builds into .build-hot-symbols. Then relink: SwiftPM does not notice that the list changed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
for tool in swift valgrind socat python3 nm ar readelf; do
    command -v "$tool" >/dev/null || { echo "error: $tool is missing" >&2; exit 1; }
done

scratch=$repo/.build-hot-symbols
echo "# building release binaries into $scratch"
# Linked -no-pie (USEDSPACE_DAEMON_LINKING=profile), so that addresses are the binary's own.
(cd "$repo" && USEDSPACE_DAEMON_LINKING=profile swift build -c release --scratch-path "$scratch" >/dev/null)
bin=$scratch/release
[[ $(readelf -h "$bin/usedspaced" | awk '$1 == "Type:" { print $2 }') == EXEC ]] ||
    { echo "error: usedspaced is not linked -no-pie; the addresses below would not be its own" >&2; exit 1; }

work=$(mktemp -d /tmp/usedspace-hot-symbols.XXXXXX)
groups=()
start_group() { setsid "$@" & groups+=($!); }
stop_group() {
    local pgid=$1 _
    kill -TERM -- "-$pgid" 2>/dev/null || return 0
    for _ in $(seq 100); do kill -0 -- "-$pgid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL -- "-$pgid" 2>/dev/null || true
}
cleanup() {
    local pgid
    for pgid in "${groups[@]}"; do stop_group "$pgid"; done
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/runtime" "$work/state" "$work/config/usedspace" "$work/no-config" "$work/watched"
printf '[daemon]\npath = %s\ninterval = 100ms\n' "$work/watched" >"$work/config/usedspace/config"
export XDG_RUNTIME_DIR=$work/runtime XDG_CONFIG_HOME=$work/config
unset USEDSPACE_SOCKET NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID LISTEN_FDS LISTEN_PID JOURNAL_STREAM
socket=$work/runtime/usedspace.sock

# Keeps, from lackey's trace ("I  addr,size" for an instruction, " L addr,size" for a load,
# " S"/" M" for a store/modify), the distinct instruction addresses and the distinct 64-byte
# lines of data accessed inside the executable (non-PIE: below 0x10000000).
cat >"$work/filter.py" <<'EOF'
import sys
code, data = set(), set()
for line in sys.stdin:
    if line.startswith("="):
        continue
    try:
        address = int(line[3:line.index(",")], 16)
    except ValueError:
        continue
    if address < 0x10000000:
        if line[0] == "I":
            code.add(address)
        else:
            data.add(address >> 6 << 6)
with open(sys.argv[1], "a") as out:
    out.writelines(f"I {a:x}\n" for a in sorted(code))
    out.writelines(f"D {a:x}\n" for a in sorted(data))
EOF

request() { echo "$1" | socat -t 5 - "UNIX-CONNECT:$socket" >/dev/null 2>&1 || true; }
wait_for_daemon() {
    local _
    for _ in $(seq 1200); do
        [[ $(echo ping | socat -t 5 - "UNIX-CONNECT:$socket" 2>/dev/null) == *pong* ]] && return 0
        sleep 0.1
    done
    echo "error: the daemon does not answer" >&2; exit 1
}

# scenario NAME SECONDS [launcher...] -- daemon arguments...
scenario() {
    local name=$1 seconds=$2; shift 2
    local launcher=()
    while [[ $1 != -- ]]; do launcher+=("$1"); shift; done
    shift
    echo "# scenario: $name"
    rm -f "$socket" "$work/trace"
    mkfifo "$work/trace"
    python3 "$work/filter.py" "$work/lines" <"$work/trace" &
    local filter=$!
    # --fair-sched: under valgrind a sample takes longer than the 100 ms interval, so the
    # sampling thread never sleeps, and valgrind's default lock let it starve the event loop.
    start_group "${launcher[@]}" valgrind --tool=lackey --trace-mem=yes --fair-sched=yes --log-file="$work/trace" \
        "$bin/usedspaced" "$@" 2>"$work/$name.log"
    local daemon=${groups[-1]}
    wait_for_daemon
    start_group bash -c '(echo "subscribe format=json"; exec sleep 100000) | socat -t 100000 - "UNIX-CONNECT:$1" >/dev/null' _ "$socket"
    local json=${groups[-1]}
    start_group bash -c '(echo subscribe; exec sleep 100000) | socat -t 100000 - "UNIX-CONNECT:$1" >/dev/null' _ "$socket"
    local text=${groups[-1]}
    local r
    for r in hello version ping help status 'status format=json' 'status format=snapshot' 'status details' \
        "status path=$work/watched" 'status json details' 'status path=relative' 'status format=xml' \
        'subscribe format=nope' 'ping extra' bogus '' quit; do
        request "$r"
    done
    USEDSPACE_SOCKET=$socket "$bin/usedspace" status >/dev/null 2>&1 || true
    USEDSPACE_SOCKET=$socket "$bin/usedspace" status --format json >/dev/null 2>&1 || true
    # Clients of every kind that come and go (bars restarted, scripts), as in the benchmarks.
    python3 "$repo/bench/lib/churn.py" clients "$socket" "$bin" "$work/watched" 1 >/dev/null 2>&1 || true
    local end=$((SECONDS + seconds)) i=0
    while ((SECONDS < end)); do
        head -c 65536 /dev/urandom >"$work/watched/churn"; sleep 0.2
        rm -f "$work/watched/churn"; sleep 0.2
        i=$((i + 1))
        ((i == 10)) && kill -HUP "$daemon"
        ((i == 14)) && { "$bin/usedspaced" --reload --socket "$socket" >/dev/null 2>&1 || true; }
        ((i % 8 == 0)) && { USEDSPACE_SOCKET=$socket "$bin/usedspace" status >/dev/null 2>&1 || true; request 'status format=json'; }
    done
    stop_group "$json"; stop_group "$text"
    stop_group "$daemon"
    wait "$filter"
}

# 1. A first start: no state yet, the configuration file, every sample published.
scenario first 25 -- --state-dir "$work/state" --threshold 0
# 2. Like bench/daemon.sh: state restored, no configuration file, paths on the command line.
XDG_CONFIG_HOME=$work/no-config scenario restart 20 -- --state-dir "$work/state" --path "$work/watched" --path / --interval 100ms
# 3. All defaults: the home directory, every 5 s.
XDG_CONFIG_HOME=$work/no-config scenario defaults 15 -- --state-dir "$work/state"
# 4. Under systemd: socket activation, READY/STATUS/WATCHDOG notifications, the journal.
if command -v systemd-socket-activate >/dev/null; then
    start_group python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1])
while True: s.recv(4096)' "$work/notify"
    # JOURNAL_STREAM names stderr (the scenario's log file), as systemd does for a unit
    # whose stderr is the journal: the daemon then logs through sd_journal_sendv.
    : >"$work/systemd.log"
    stream=$(stat -c '%d:%i' "$work/systemd.log")
    NOTIFY_SOCKET=$work/notify WATCHDOG_USEC=2000000 JOURNAL_STREAM=$stream \
        scenario systemd 20 systemd-socket-activate -l "$socket" -E XDG_RUNTIME_DIR -E XDG_CONFIG_HOME \
        -E NOTIFY_SOCKET -E WATCHDOG_USEC -E JOURNAL_STREAM -E HOME -E PATH -- \
        --state-dir "$work/state" --interval 100ms
fi

# Name the functions executed and the data touched. Functions first, those in the Swift
# standard library's one big .text section last (that section moves as a whole), then data.
ar p "$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift_static/linux/libswiftCore.a" Swift.o >"$work/Swift.o"
nm -n -S --defined-only "$bin/usedspaced" >"$work/symbols"
text_index=$(readelf -SW "$work/Swift.o" | sed -n 's/^ *\[ *\([0-9]*\)\] \.text .*/\1/p' | head -1)
readelf -sW "$work/Swift.o" | awk -v text="$text_index" '$4 == "FUNC" && $7 == text { print $8 }' >"$work/swift-text-functions"
python3 - "$work/lines" "$work/symbols" "$work/swift-text-functions" "$here/hot-symbols.txt" <<'EOF'
import bisect, sys
lines_path, symbols_path, swift_text_path, out_path = sys.argv[1:]
records = [l.split() for l in open(lines_path)]
code = sorted({int(a, 16) for k, a in records if k == "I"})  # executed instructions
data = sorted({int(a, 16) for k, a in records if k == "D"})  # 64-byte lines read or written
symbols = []  # (address, size, name, is a function); a symbol without a size runs to the next one
entries = [l.split() for l in open(symbols_path)]
entries = [(int(p[0], 16), int(p[1], 16) if len(p) == 4 else None, p[-2], p[-1]) for p in entries if len(p) in (3, 4)]
for k, (address, size, kind, name) in enumerate(entries):
    if kind not in "tTwWdDbBrRvV":
        continue
    if size is None:
        following = next((e[0] for e in entries[k + 1:] if e[0] > address), address + 1)
        size = min(following - address, 4096)
    symbols.append((address, max(size, 1), name, kind in "tTwW"))
hot = {}
for address, size, name, is_function in symbols:
    if name.startswith(("__start_", "__stop_")):
        continue
    if is_function:  # an instruction in [address, address + size)?
        i = bisect.bisect_left(code, address)
        touched = i < len(code) and code[i] < address + size
    else:  # a recorded line overlapping [address, address + size)?
        i = bisect.bisect_right(data, address + size - 1)
        touched = i > 0 and data[i - 1] + 64 > address
    if touched:
        hot.setdefault(name, (address, is_function))
swift_text = set(open(swift_text_path).read().split())
functions = sorted((a, n) for n, (a, f) in hot.items() if f and n not in swift_text)
swift_functions = sorted((a, n) for n, (a, f) in hot.items() if f and n in swift_text)
hot_data = sorted((a, n) for n, (a, f) in hot.items() if not f)
with open(out_path, "w") as out:
    out.write("# Generated by update-hot-symbols.sh (see there and Package.swift); do not edit.\n")
    for _, name in functions + swift_functions + hot_data:
        out.write(name + "\n")
print(f"{len(functions)} functions, {len(swift_functions)} in libswiftCore's .text, {len(hot_data)} data symbols -> {out_path}")
EOF
echo "# relink usedspaced now: SwiftPM does not notice the new list (delete the built usedspaced first)"
