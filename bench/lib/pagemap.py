#!/usr/bin/env python3
"""Which parts of a running program's executable are resident, and what code they hold.

    pagemap.py PID [TOP]

Reads /proc/PID/maps and /proc/PID/pagemap (root) for the mappings of the executable, and
nm's symbols of it, and prints: resident KiB per mapping, then the resident stretches of
the text (each a run of resident 4 KiB pages; the kernel maps 64 KiB around a fault) with
the TOP largest symbols (default 3) in each and the module their names are mangled in.
What it is for: finding the code whose first use costs resident memory (docs/PERFORMANCE.md,
"The daemon's resident memory").
"""
import os
import re
import struct
import subprocess
import sys

PAGE = 4096


def mappings(pid):
    exe = os.readlink(f"/proc/{pid}/exe")
    result = []
    for line in open(f"/proc/{pid}/maps"):
        parts = line.split()
        if len(parts) >= 6 and parts[5] == exe:
            start, end = (int(x, 16) for x in parts[0].split("-"))
            result.append((start, end, parts[1], int(parts[2], 16)))
    return exe, result


def resident(pid, start, end):
    pages = []
    with open(f"/proc/{pid}/pagemap", "rb") as f:
        f.seek(start // PAGE * 8)
        data = f.read((end - start) // PAGE * 8)
    for i in range(len(data) // 8):
        (entry,) = struct.unpack("<Q", data[i * 8:i * 8 + 8])
        if entry >> 63:
            pages.append(start + i * PAGE)
    return pages


def module(name):
    m = re.match(r"\$s(\d+)", name)
    if not m:
        return "C/C++"
    length = int(m.group(1))
    return name[2 + len(m.group(1)):2 + len(m.group(1)) + length]


def main():
    pid = int(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    exe, maps = mappings(pid)
    symbols = []
    for line in subprocess.run(["nm", "-n", "-S", "--defined-only", exe], capture_output=True, text=True).stdout.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tTwW":
            symbols.append((int(p[0], 16), int(p[1], 16), p[3]))
    # Load bias: the text mapping's file offset tells where the file's addresses start.
    total = 0
    for start, end, perms, offset in maps:
        pages = resident(pid, start, end)
        total += len(pages) * 4
        print(f"{perms} {(end - start) // 1024:7d} KiB mapped, {len(pages) * 4:6d} KiB resident")
        if "x" not in perms:
            continue
        bias = start - offset
        runs = []
        for page in pages:
            if runs and page == runs[-1][1]:
                runs[-1][1] = page + PAGE
            else:
                runs.append([page, page + PAGE])
        for run_start, run_end in runs:
            lo, hi = run_start - bias, run_end - bias
            inside = [(size, name) for address, size, name in symbols if address < hi and address + size > lo]
            inside.sort(reverse=True)
            modules = {}
            for size, name in inside:
                modules[module(name)] = modules.get(module(name), 0) + size
            main_modules = ", ".join(f"{m} {s // 1024}K" for m, s in sorted(modules.items(), key=lambda kv: -kv[1])[:3])
            print(f"  {(run_end - run_start) // 1024:4d} KiB at {lo:#x}: {main_modules}")
            for size, name in inside[:top]:
                print(f"        {size:7d} {name[:110]}")
    print(f"total resident in {os.path.basename(exe)}: {total} KiB")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main()
