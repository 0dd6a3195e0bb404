import CLinux

/// The parts of `stat(2)` this program uses.
public struct FileStatus: Equatable, Sendable {
    public var deviceMajor: UInt32
    public var deviceMinor: UInt32
    public var isDirectory: Bool
    public var isSocket: Bool
    public var isRegularFile: Bool
    public var ownerID: UInt32
    public var mode: UInt32
    public var inode: UInt64
    public var size: UInt64
    /// st_mtim, in nanoseconds since the epoch.
    public var modifiedNanoseconds: Int64

    public static func of(_ path: String) throws(SystemError) -> FileStatus {
        var info = stat()
        _ = try SystemCall.retrying("stat") { stat(path, &info) }
        return FileStatus(info)
    }

    /// With the path as a C string made once: a short Swift string (15 bytes or less, as
    /// "/home/alice") is stored inline and is copied into a new array at every call.
    public static func of(_ path: ContiguousArray<CChar>) throws(SystemError) -> FileStatus {
        var info = stat()
        _ = try SystemCall.retrying("stat") { path.withUnsafeBufferPointer { stat($0.baseAddress!, &info) } }
        return FileStatus(info)
    }

    /// Whether anything is at `path` (following symlinks).
    public static func exists(_ path: String) -> Bool {
        (try? of(path)) != nil
    }

    public static func of(descriptor: Int32) throws(SystemError) -> FileStatus {
        var info = stat()
        _ = try SystemCall.retrying("fstat") { fstat(descriptor, &info) }
        return FileStatus(info)
    }

    /// A dev_t's major and minor numbers (gnu_dev_major/minor are macros in glibc; this is
    /// their definition).
    static func deviceNumbers(_ device: UInt64) -> (major: UInt32, minor: UInt32) {
        (UInt32(((device >> 32) & 0xFFFF_F000) | ((device >> 8) & 0x0000_0FFF)), UInt32(((device >> 12) & 0xFFFF_FF00) | (device & 0x0000_00FF)))
    }

    init(_ info: stat) {
        (deviceMajor, deviceMinor) = Self.deviceNumbers(UInt64(info.st_dev))
        isDirectory = (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFDIR)
        isSocket = (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFSOCK)
        isRegularFile = (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFREG)
        ownerID = info.st_uid
        mode = info.st_mode & 0o7777
        inode = UInt64(info.st_ino)
        size = UInt64(max(info.st_size, 0))
        modifiedNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}
