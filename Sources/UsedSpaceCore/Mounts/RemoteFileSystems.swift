/// Filesystem types whose calls can block indefinitely when a server or a userspace
/// daemon stops answering: network filesystems, FUSE, automounts.
public enum RemoteFileSystems {
    static let types: Set<String> = [
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "9p", "afs", "coda", "ceph", "glusterfs",
        "lustre", "gfs2", "ocfs2", "orangefs", "pvfs2", "beegfs", "gpfs", "davfs", "fuse", "fuseblk",
        "autofs", "virtiofs",
    ]

    public static func mayHang(_ fileSystemType: String) -> Bool {
        types.contains(fileSystemType) || fileSystemType.hasPrefix("fuse.")
    }
}

/// Paths made absolute and normalised without asking the filesystem (no symlinks
/// followed): enough to tell which mount a path is under before touching it.
public enum LexicalPath {
    public static func normalize(_ path: String, currentDirectory: String) -> String {
        let absolute = path.hasPrefix("/") ? path : currentDirectory + "/" + path
        var components: [Substring] = []
        for component in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": if !components.isEmpty { components.removeLast() }
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}
