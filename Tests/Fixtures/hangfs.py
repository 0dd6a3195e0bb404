#!/usr/bin/python3
"""hangfs: a FUSE filesystem whose statfs() blocks while a flag file exists.

It stands in for a dead network filesystem: every statvfs() on the mount waits in the
kernel until the flag is removed, whatever the caller does. Used by the integration tests.

    hangfs.py MOUNTPOINT FLAGFILE      # runs in the foreground; needs /dev/fuse and fusepy
    touch FLAGFILE                     # statvfs(MOUNTPOINT) now hangs
    rm FLAGFILE                        # hung callers return
    fusermount -u MOUNTPOINT

It reports 1000 blocks of 4096 bytes, 400 free, 300 available; when the file
MOUNTPOINT-numbers (FLAGFILE + ".numbers") holds "blocks free available", those instead.
Needs: apt-get install fuse3 python3-fusepy
"""
import errno
import os
import sys
import time

sys.path.insert(0, "/usr/lib/python3/dist-packages")
from fusepy import FUSE, Operations  # noqa: E402


class Hang(Operations):
    def __init__(self, flag):
        self.flag = flag

    def getattr(self, path, fh=None):
        if path == "/":
            return dict(st_mode=0o40755, st_nlink=2)
        raise OSError(errno.ENOENT, "")

    def readdir(self, path, fh):
        return [".", ".."]

    def statfs(self, path):
        while os.path.exists(self.flag):
            time.sleep(0.05)
        blocks, free, available = 1000, 400, 300
        try:
            with open(self.flag + ".numbers") as numbers:
                blocks, free, available = (int(word) for word in numbers.read().split())
        except (OSError, ValueError):
            pass
        return dict(f_bsize=4096, f_frsize=4096, f_blocks=blocks, f_bfree=free, f_bavail=available,
                    f_files=100, f_ffree=50, f_favail=50, f_namemax=255)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    FUSE(Hang(sys.argv[2]), sys.argv[1], foreground=True, nothreads=False, allow_other=True)
