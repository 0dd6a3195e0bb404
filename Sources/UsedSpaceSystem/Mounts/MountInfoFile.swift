import CLinux
import UsedSpaceCore

/// `/proc/self/mountinfo` held open, to be told of mount table changes and read again: the
/// kernel raises POLLPRI (and POLLERR) on an open mountinfo file whenever a mount or unmount
/// changes this process's mount namespace, and reading it again from the start gives the
/// new table. Reading it asks the kernel's table only, never a mounted filesystem.
public final class MountInfoFile {
    private let file: FileDescriptor
    /// Larger than any table seen (thousands of container mounts make a few MB).
    public static let limit = 32 << 20

    public init(path: String = MountTable.path) throws(SystemError) {
        file = try FileDescriptor.open(path, O_RDONLY)
    }

    /// For poll(2)/epoll with POLLPRI; owned here.
    public var descriptor: Int32 { file.rawValue }

    /// The table as it is now (from the start of the file, whatever was read before).
    public func read() throws(FileReadError) -> [MountEntry] {
        guard lseek(file.rawValue, 0, SEEK_SET) == 0 else { throw .system(SystemError(call: "lseek", errno: clinux_errno())) }
        return MountInfoParser.parse(bytes: try FileContents.read(file, limit: Self.limit))
    }
}
