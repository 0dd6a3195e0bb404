#!/usr/bin/python3
"""hangfs: a FUSE filesystem that stops answering, like a dead NFS server.

It shows a backing directory read-only. While a flag file exists, EVERY operation on the
mount (lookup, getattr, readdir, open, read, readlink, statfs...) blocks in the kernel until
the flag is removed, whatever the caller does: a process stuck in it is in state D.
Attributes and names are not cached (attr_timeout=0, entry_timeout=0), so nothing is
answered from the kernel's cache either. Used by the integration tests.

    hangfs.py MOUNTPOINT FLAGFILE BACKING   # runs in the foreground; needs /dev/fuse and fusepy
    touch FLAGFILE                         # every call on MOUNTPOINT now hangs
    rm FLAGFILE                            # hung callers return
    fusermount3 -u MOUNTPOINT

statfs reports 1000 blocks of 4096 bytes, 400 free, 300 available; when the file
FLAGFILE + ".numbers" holds "blocks free available", those instead.
With FLAGFILE + ".only-statfs" present, only statfs hangs (a server that answers lookups from
its cache but not the rest).
Needs: apt-get install fuse3 python3-fusepy
"""
import errno
import os
import sys
import time

sys.path.insert(0, "/usr/lib/python3/dist-packages")
from fusepy import FUSE, FuseOSError, Operations  # noqa: E402


class Hang(Operations):
    def __init__(self, flag, backing):
        self.flag = flag
        self.backing = backing

    def gate(self, operation):
        if operation != "statfs" and os.path.exists(self.flag + ".only-statfs"):
            return
        while os.path.exists(self.flag):
            time.sleep(0.05)

    def real(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    def getattr(self, path, fh=None):
        self.gate("getattr")
        try:
            st = os.lstat(self.real(path))
        except OSError as error:
            raise FuseOSError(error.errno)
        return {key: getattr(st, key) for key in (
            "st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime")}

    def readdir(self, path, fh):
        self.gate("readdir")
        return [".", ".."] + os.listdir(self.real(path))

    def readlink(self, path):
        self.gate("readlink")
        return os.readlink(self.real(path))

    def access(self, path, mode):
        self.gate("access")
        if not os.access(self.real(path), mode):
            raise FuseOSError(errno.EACCES)

    def open(self, path, flags):
        self.gate("open")
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise FuseOSError(errno.EROFS)
        return os.open(self.real(path), os.O_RDONLY)

    def read(self, path, size, offset, fh):
        self.gate("read")
        os.lseek(fh, offset, os.SEEK_SET)
        return os.read(fh, size)

    def release(self, path, fh):
        os.close(fh)

    def statfs(self, path):
        self.gate("statfs")
        blocks, free, available = 1000, 400, 300
        try:
            with open(self.flag + ".numbers") as numbers:
                blocks, free, available = (int(word) for word in numbers.read().split())
        except (OSError, ValueError):
            pass
        return dict(f_bsize=4096, f_frsize=4096, f_blocks=blocks, f_bfree=free, f_bavail=available,
                    f_files=100, f_ffree=50, f_favail=50, f_namemax=255)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    # Mounted over a directory that has files (another filesystem's root, as a mount over a
    # watched disk): libfuse 2 wants that said.
    over = {"nonempty": True} if os.listdir(sys.argv[1]) else {}
    FUSE(Hang(sys.argv[2], sys.argv[3]), sys.argv[1], foreground=True, nothreads=False, allow_other=True,
         attr_timeout=0, entry_timeout=0, negative_timeout=0, ro=True, **over)
