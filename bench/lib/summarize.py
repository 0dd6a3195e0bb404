#!/usr/bin/env python3
"""Ratios against a reference command from hyperfine --export-json files (bench/lib/rounds.sh).

Each file is one round: every command measured in the same hyperfine run. For each round and
command, ratio = mean(command) / mean(reference). With --round, prints that round's ratios on
one line; otherwise prints a Markdown table of the median, min and max ratio over the rounds
and the median over the rounds of each command's mean and stddev (milliseconds).
"""
import argparse
import json
import statistics
import sys


def load(path):
    with open(path) as f:
        return {r["command"]: r for r in json.load(f)["results"]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference", required=True)
    parser.add_argument("--round", help="print one round's ratios, labelled with this")
    parser.add_argument("--order", action="append", default=[], help="command names in table order")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    rounds = [load(path) for path in args.files]
    for path, results in zip(args.files, rounds):
        if args.reference not in results:
            sys.exit(f"summarize: {path} has no result for the reference {args.reference!r}")
    names = args.order or list(rounds[0])
    names = [n for n in names if all(n in r for r in rounds)]

    if args.round:
        parts = []
        for name in names:
            if name == args.reference:
                continue
            ratio = rounds[0][name]["mean"] / rounds[0][args.reference]["mean"]
            parts.append(f"{name}: {ratio:.2f}x")
        ref_ms = rounds[0][args.reference]["mean"] * 1000
        print(f"round {args.round}: {args.reference} {ref_ms:.3f} ms; " + "; ".join(parts), flush=True)
        return

    print(f"{len(rounds)} rounds; ratio = mean(command) / mean({args.reference}) in the same round")
    print()
    print("| command | median ratio | min | max | mean ms (median of rounds) | σ ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name in names:
        ratios = [r[name]["mean"] / r[args.reference]["mean"] for r in rounds]
        means = [r[name]["mean"] * 1000 for r in rounds]
        stddevs = [(r[name]["stddev"] or 0) * 1000 for r in rounds]
        print(
            f"| {name} | {statistics.median(ratios):.2f}× | {min(ratios):.2f}× | {max(ratios):.2f}× "
            f"| {statistics.median(means):.3f} | {statistics.median(stddevs):.3f} |"
        )
    failures = sorted(
        name for r in rounds for name, result in r.items() if any(code != 0 for code in result.get("exit_codes") or [])
    )
    if failures:
        print()
        print("warning: non-zero exit codes from: " + ", ".join(sorted(set(failures))))


if __name__ == "__main__":
    main()
