#!/usr/bin/env bash
# Fuzzes the parsers of untrusted input with libFuzzer, each for a bounded time.
#
# The targets are the executables under Fuzz/<Name>/ (product Fuzz<Name>), which are part of
# the package only when USEDSPACE_FUZZ=1 (see Package.swift): RequestParser (the daemon's
# socket protocol), ClickEventDecoder (i3bar/i3blocks click events on stdin), JSONParser,
# ResponseFrameDecoder (the daemon's answers, read by clients), Configuration (the config
# file), SnapshotCodec (the state file and snapshot lines) and UsageHistory (the history
# file of the time-to-full estimate). Each one also checks
# properties that must hold (see the comment at the top of its source) and traps when one
# does not, which libFuzzer reports as a crash.
#
# For each target, one after another: build it with
#   USEDSPACE_FUZZ=1 swift build -c release --sanitize=fuzzer --scratch-path .build-fuzz --product Fuzz<Name>
# copy its seed corpus Fuzz/Corpus/<Name>/ into FUZZ_OUT (libFuzzer adds the inputs it finds
# to that copy; generated corpora are never written into the repository), run it for
# FUZZ_SECONDS with -max_total_time and -print_final_stats=1, and count the executions
# (stat::number_of_executed_units) and the reproducers it wrote (crash-*, timeout-*, oom-*,
# leak-*). Then print a table: target, seconds, executions, executions per second, crashes.
# Every reproducer is listed with its path, the failure from the log, and its bytes in
# base64 and hex, so that a CI log alone is enough to reproduce it:
#   SWIFT_BACKTRACE=enable=no .build-fuzz/release/Fuzz<Name> <reproducer>
# Exits 1 if any target crashed, hung (an input taking more than FUZZ_TIMEOUT seconds) or
# stopped with an error; 0 when every target ran its time without a crash.
#
# SWIFT_BACKTRACE=enable=no is set for the targets: otherwise Swift's own crash handler takes
# the trap first and libFuzzer never writes the reproducer.
#
# Run:   bench/fuzz.sh                                   (60 s per target: about 7 min)
#        FUZZ_SECONDS=300 bench/fuzz.sh                  (longer)
#        FUZZ_TARGETS="RequestParser JSONParser" bench/fuzz.sh   (only these)
# Settings (environment): FUZZ_SECONDS (60) per target; FUZZ_TARGETS (all seven);
# FUZZ_TIMEOUT (10) seconds one input may take before it counts as a hang; FUZZ_OUT (a new
# directory under /tmp) for the logs, corpus copies and reproducers; FUZZ_KEEP_CORPUS=1 keeps
# the grown corpus copies (they are deleted otherwise); FUZZ_ARGS, extra libFuzzer options.
# Needs: a Swift toolchain that ships libFuzzer on Linux (swift.org's does).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

seconds=${FUZZ_SECONDS:-60}
timeout=${FUZZ_TIMEOUT:-10}
read -r -a targets <<< "${FUZZ_TARGETS:-RequestParser ClickEventDecoder JSONParser ResponseFrameDecoder Configuration SnapshotCodec UsageHistory Template FillWriterExchange}"
read -r -a extra_args <<< "${FUZZ_ARGS:-}"
if ! [[ $seconds =~ ^[0-9]+$ ]] || (( seconds < 1 )); then
    # -max_total_time=0 would mean "no limit".
    echo "error: FUZZ_SECONDS must be a whole number of seconds, at least 1 (got '$seconds')" >&2
    exit 2
fi
for name in "${targets[@]}"; do
    [[ -d Fuzz/$name && -d Fuzz/Corpus/$name ]] || { echo "error: no fuzz target Fuzz/$name with a corpus Fuzz/Corpus/$name" >&2; exit 2; }
done
out=${FUZZ_OUT:-$(mktemp -d /tmp/usedspace-fuzz.XXXXXX)}
mkdir -p "$out"

build=(swift build -c release --sanitize=fuzzer --scratch-path .build-fuzz)
for name in "${targets[@]}"; do
    echo "# building Fuzz$name"
    if ! USEDSPACE_FUZZ=1 "${build[@]}" --product "Fuzz$name" > "$out/build-$name.log" 2>&1; then
        cat "$out/build-$name.log" >&2
        echo "error: the build failed; run: USEDSPACE_FUZZ=1 ${build[*]} --product Fuzz$name" >&2
        exit 2
    fi
done
bin=$(USEDSPACE_FUZZ=1 "${build[@]}" --show-bin-path)

rows=()
reproducers=()
failed=0
for name in "${targets[@]}"; do
    corpus=$out/corpus-$name
    rm -rf "$corpus"
    mkdir -p "$corpus"
    cp Fuzz/Corpus/"$name"/* "$corpus"/
    log=$out/$name.log
    echo "# fuzzing $name for $seconds s (log: $log)"
    start=$SECONDS
    status=0
    SWIFT_BACKTRACE=enable=no "$bin/Fuzz$name" \
        -max_total_time="$seconds" -timeout="$timeout" -print_final_stats=1 \
        -artifact_prefix="$out/$name-" ${extra_args[@]+"${extra_args[@]}"} "$corpus" > "$log" 2>&1 || status=$?
    elapsed=$((SECONDS - start))
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    found=()
    for file in "$out/$name-"{crash,timeout,oom,leak,slow-unit}-*; do
        [[ -e $file ]] && found+=("$file")
    done
    crashes=0
    for file in ${found[@]+"${found[@]}"}; do
        [[ $file == *slow-unit-* ]] || crashes=$((crashes + 1))
    done
    if (( status != 0 && crashes == 0 )); then
        crashes="? (exit $status)"
    fi
    if (( status != 0 )) || [[ $crashes != 0 ]]; then
        failed=1
    fi
    rows+=("$(printf '%-22s %8s %14s %10s  %s' "$name" "$elapsed" "${executions:-?}" "${rate:-?}" "$crashes")")
    reproducers+=(${found[@]+"${found[@]}"})
    if (( status != 0 )); then
        echo "## $name stopped with exit status $status; from its log:"
        # The failure, the stack below libFuzzer's own frames, and where the reproducer went.
        { grep -E 'Fatal error|runtime failure|==ERROR|^ *#[0-9]+ 0x|^SUMMARY|Test unit written' "$log" \
            | grep -vE 'compiler-rt/lib/(fuzzer|ubsan)|libc\.so|libc_start|in _start ' || tail -n 20 "$log"; } | head -n 40
    fi
    if [[ ${FUZZ_KEEP_CORPUS:-0} != 1 ]]; then rm -rf "$corpus"; fi
done

echo
printf '%-22s %8s %14s %10s  %s\n' target seconds executions "exec/s" crashes
for row in "${rows[@]}"; do echo "$row"; done

if (( ${#reproducers[@]} > 0 )); then
    echo
    echo "Reproducers (run one with: SWIFT_BACKTRACE=enable=no $bin/Fuzz<target> FILE):"
    for file in "${reproducers[@]}"; do
        echo "  $file ($(stat -c %s "$file") bytes)"
        echo "    base64: $(base64 -w 0 "$file")"
        if (( $(stat -c %s "$file") <= 1024 )); then echo "    hex:    $(od -An -v -tx1 "$file" | tr -d ' \n')"; fi
    done
fi
echo
echo "logs and reproducers: $out"
exit "$failed"
