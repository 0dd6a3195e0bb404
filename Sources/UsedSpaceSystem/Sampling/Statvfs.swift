import CLinux
import UsedSpaceCore

/// `statvfs(3)`, the call df makes. It can block for as long as the filesystem does (a dead
/// NFS server): callers that must stay responsive run it off their event loop.
///
/// statvfs cannot tell a read-only filesystem from a read-only view of a writable one
/// (`ST_RDONLY` is set for both): the caller says which from the mount table
/// (MountEntry.readOnly), and the view's flag comes along as `viewReadOnly`.
public enum Statvfs {
    public static func of(_ path: String, readOnly: Bool) throws(SystemError) -> FilesystemStats {
        try reading(of: path, readOnly: readOnly).statistics
    }

    /// The figures and `f_fsid` of one statvfs: a sampling thread compares both with its
    /// last sample's to see, in one call, that nothing changed.
    public struct Reading: Equatable, Sendable {
        public var statistics: FilesystemStats
        public var identifier: UInt64
        /// `ST_RDONLY`: the filesystem, or only this process's view of it, is read-only.
        public var viewReadOnly: Bool
    }

    public static func reading(of path: String, readOnly: Bool) throws(SystemError) -> Reading {
        try reading(readOnly: readOnly) { info in statvfs(path, &info) }
    }

    /// With the path as a C string made once (see FileStatus.of).
    public static func reading(of path: ContiguousArray<CChar>, readOnly: Bool) throws(SystemError) -> Reading {
        try reading(readOnly: readOnly) { info in path.withUnsafeBufferPointer { statvfs($0.baseAddress!, &info) } }
    }

    private static func reading(readOnly: Bool, _ call: (inout statvfs) -> Int32) throws(SystemError) -> Reading {
        var info = statvfs()
        _ = try SystemCall.retrying("statvfs") { call(&info) }
        let fragmentSize = UInt64(info.f_frsize)
        let statistics = FilesystemStats(
            blockSize: fragmentSize != 0 ? fragmentSize : UInt64(info.f_bsize),
            totalBlocks: UInt64(info.f_blocks),
            freeBlocks: UInt64(info.f_bfree),
            availableBlocks: UInt64(info.f_bavail),
            totalInodes: UInt64(info.f_files),
            freeInodes: UInt64(info.f_ffree),
            readOnly: readOnly
        )
        return Reading(statistics: statistics, identifier: UInt64(info.f_fsid), viewReadOnly: info.f_flag & UInt(ST_RDONLY) != 0)
    }

    /// statvfs's `f_fsid`: which filesystem the path is on, as the filesystem itself names
    /// it (BtrfsFileSystemID reads the btrfs UUID out of it).
    public static func identifier(of path: String) throws(SystemError) -> UInt64 {
        try reading(of: path, readOnly: false).identifier
    }
}
