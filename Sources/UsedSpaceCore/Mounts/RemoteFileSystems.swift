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
    /// On bytes, not Characters: a path is bytes to the kernel, and Character-level String
    /// work is a large part of the standard library for the daemon to page in.
    public static func normalize(_ path: String, currentDirectory: String) -> String {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var bytes = Array(path.utf8)
        if bytes.first != slash { bytes = Array(currentDirectory.utf8) + [slash] + bytes }
        var components: [ArraySlice<UInt8>] = []
        for component in bytes.split(separator: slash, omittingEmptySubsequences: true) {
            if component.elementsEqual([dot]) { continue }
            if component.elementsEqual([dot, dot]) {
                if !components.isEmpty { components.removeLast() }
                continue
            }
            components.append(component)
        }
        var normalized: [UInt8] = []
        for component in components {
            normalized.append(slash)
            normalized += component
        }
        return normalized.isEmpty ? "/" : String(decoding: normalized, as: UTF8.self)
    }
}
