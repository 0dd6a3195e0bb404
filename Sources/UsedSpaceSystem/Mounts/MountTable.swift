import CLinux
import UsedSpaceCore

/// This process's view of the mounts (/proc/self/mountinfo), read without touching any
/// mounted filesystem.
public enum MountTable {
    public static let path = "/proc/self/mountinfo"

    public static func read() throws(FileReadError) -> [MountEntry] {
        MountInfoParser.parse(bytes: try FileContents.read(path))
    }

    /// Whether the mount that `path` lies under, going by the path's text, may hang
    /// (RealFilesystems.mayHang). Nothing on any mounted filesystem is looked at (a symlink
    /// from a local path into such a mount is not seen through). A mount the table does
    /// not show (a bare chroot) may be anything, so it may hang.
    public static func mayHang(_ path: String, in mounts: [MountEntry]) -> Bool {
        lexicalMount(of: path, in: mounts).map { RealFilesystems.mayHang($0.fileSystemType) } ?? true
    }

    /// The mount `path` lies under, going by the path's text alone.
    public static func lexicalMount(of path: String, in mounts: [MountEntry]) -> MountEntry? {
        MountLocator.mount(containing: LexicalPath.normalize(path, currentDirectory: currentDirectory), in: mounts)
    }

    /// As above, reading the mount table; true when it cannot be read (nothing says what
    /// the path's mount is).
    public static func mayHang(_ path: String) -> Bool {
        guard let mounts = try? read() else { return true }
        return mayHang(path, in: mounts)
    }

    /// getcwd(2) asks the kernel's cache of names, not the filesystem.
    static var currentDirectory: String {
        var directory = [CChar](repeating: 0, count: 4096)
        return getcwd(&directory, directory.count).map { String(cString: $0) } ?? "/"
    }
}
