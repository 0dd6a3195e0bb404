import Glibc
import UsedSpaceCore

/// `statvfs(3)`, the call df makes. It can block for as long as the filesystem does (a dead
/// NFS server): callers that must stay responsive run it off their event loop.
public enum FileSystemStatistics {
    public static func of(_ path: String) throws(SystemError) -> FilesystemStats {
        try reading(of: path).statistics
    }

    /// The figures and `f_fsid` of one statvfs: a sampling thread compares both with its
    /// last sample's to see, in one call, that nothing changed.
    public struct Reading: Equatable, Sendable {
        public var statistics: FilesystemStats
        public var identifier: UInt64
    }

    public static func reading(of path: String) throws(SystemError) -> Reading {
        try reading { info in statvfs(path, &info) }
    }

    /// With the path as a C string made once (see FileStatus.of).
    public static func reading(of path: ContiguousArray<CChar>) throws(SystemError) -> Reading {
        try reading { info in path.withUnsafeBufferPointer { statvfs($0.baseAddress!, &info) } }
    }

    private static func reading(_ call: (inout statvfs) -> Int32) throws(SystemError) -> Reading {
        var info = statvfs()
        _ = try SystemCall.retrying("statvfs") { call(&info) }
        return Reading(statistics: statistics(info), identifier: UInt64(info.f_fsid))
    }

    private static func statistics(_ info: statvfs) -> FilesystemStats {
        let fragmentSize = UInt64(info.f_frsize)
        return FilesystemStats(
            blockSize: fragmentSize != 0 ? fragmentSize : UInt64(info.f_bsize),
            totalBlocks: UInt64(info.f_blocks),
            freeBlocks: UInt64(info.f_bfree),
            availableBlocks: UInt64(info.f_bavail),
            totalInodes: UInt64(info.f_files),
            freeInodes: UInt64(info.f_ffree),
            readOnly: info.f_flag & UInt(ST_RDONLY) != 0
        )
    }

    /// statvfs's `f_fsid`: which filesystem the path is on, as the filesystem itself names
    /// it (BtrfsFileSystemID reads the btrfs UUID out of it).
    public static func identifier(of path: String) throws(SystemError) -> UInt64 {
        var info = statvfs()
        _ = try SystemCall.retrying("statvfs") { statvfs(path, &info) }
        return UInt64(info.f_fsid)
    }
}
