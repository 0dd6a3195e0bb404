"""A disk in use: appends 256 KiB to FILE every second (on a 1 GiB tmpfs, 0.024 %: every
sample is news), emptying it at 512 MiB. Usage: python3 bench/lib/writer.py FILE"""
import os
import sys
import time

path, chunk = sys.argv[1], b"\0" * (256 << 10)
while True:
    with open(path, "ab") as f:
        f.write(chunk)
    if os.path.getsize(path) >= 512 << 20:
        os.truncate(path, 0)
    time.sleep(1)
