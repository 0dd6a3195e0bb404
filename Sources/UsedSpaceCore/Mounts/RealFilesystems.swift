/// Which mounts are "real" filesystems: the rule of `usedspace list` and of the daemon's
/// automatic paths, written once. It is lexical (mount table only, no filesystem touched),
/// modelled on dysk ("normal" mounts: storage with a device or remote, no bind duplicates,
/// no squashfs) and duf (local / network / fuse / special / loops / binds groups):
///
/// - pseudo filesystems (proc, sysfs, cgroup, devtmpfs, …) are never real;
/// - memory filesystems (tmpfs, ramfs) hold no disk space: hidden unless asked, as dysk
///   does (duf files them under "special"); a systemd machine has a dozen of them;
/// - stacking filesystems (overlay, aufs, ecryptfs) report the numbers of the filesystem
///   under them: shown only at "/" (a container's root, the one view of that storage);
/// - squashfs (snap-style loop images, always 100 % full) only when asked;
/// - a mount covered by a later mount (same point, or a point above it) cannot be
///   measured by its path: it is left out;
/// - one entry per filesystem (device numbers), however often it is mounted or
///   bind-mounted: the entry that mounts the filesystem's root ("/") wins over a bind of a
///   subdirectory, then the earliest in mount order (the way the system mounted it first).
public enum RealFilesystems {
    /// How the rule sees a mount's type.
    public enum Kind: String, Sendable, Equatable {
        case local, network, fuse, memory, stacked, loopImage = "loop", pseudo
    }

    /// Which mounts are "real" filesystems, one entry per filesystem (device), in mount
    /// order; the first mount of a device's root wins (see the type's comment).
    public static func select(
        _ entries: [MountEntry], includeLoopImages: Bool = false, includeMemoryFilesystems: Bool = false
    ) -> [MountEntry] {
        let visible = measurable(entries)
        let kept = visible.filter { entry in
            switch kind(of: entry.fileSystemType) {
            case .local, .network, .fuse: return true
            case .memory: return includeMemoryFilesystems
            case .loopImage: return includeLoopImages
            case .stacked: return entry.mountPoint == "/"
            case .pseudo: return false
            }
        }
        return onePerDevice(kept)
    }

    /// Network filesystems (nfs, nfs4, cifs, smb3, sshfs, 9p, ceph, glusterfs…): shown,
    /// measured with the hang timeout.
    public static func isNetwork(_ fileSystemType: String) -> Bool {
        isNetworkType(fileSystemType)
    }

    /// Local filesystems of the kernel whose calls answer from memory or a local disk
    /// (block devices, tmpfs, the kernel's pseudo filesystems, overlays of those): touched
    /// directly. The one rule of what may hang is its opposite (`mayHang`).
    public static func isKnownLocal(_ fileSystemType: String) -> Bool {
        if fileSystemType == "autofs" || fileSystemType.hasPrefix("fuse") { return false }
        return isLocalBlock(fileSystemType) || isMemory(fileSystemType)
            || isPseudo(fileSystemType) || isLoopImage(fileSystemType) || isStacked(fileSystemType)
    }

    /// Whether a filesystem's calls can block for as long as a server or a userspace daemon
    /// does not answer: everything not known local, FUSE above all, network filesystems,
    /// autofs (whose statvfs can trigger a mount of anything), and any type this list does
    /// not know. Such a filesystem is touched only by a child process (a probe, a reader)
    /// given up on after the timeout: `status`, `list`, `watch` and the daemon alike.
    public static func mayHang(_ fileSystemType: String) -> Bool {
        !isKnownLocal(fileSystemType)
    }

    public static func kind(of fileSystemType: String) -> Kind {
        if isPseudo(fileSystemType) { return .pseudo }
        if isNetworkType(fileSystemType) { return .network }
        if isMemory(fileSystemType) { return .memory }
        if isStacked(fileSystemType) { return .stacked }
        if isLoopImage(fileSystemType) { return .loopImage }
        if fileSystemType == "fuse" || fileSystemType == "fuseblk" || fileSystemType.hasPrefix("fuse.") {
            return .fuse
        }
        return .local
    }

    /// The entries whose mount point shows them: not covered by a later mount on the same
    /// point or on a directory above it (unless that later mount is one they sit on).
    ///
    /// Written with arrays and sorting rather than sets and dictionaries of custom keys:
    /// their generic metadata is built at run time, which cost `list` more than all its
    /// statvfs calls (docs/PERFORMANCE.md).
    public static func measurable(_ entries: [MountEntry]) -> [MountEntry] {
        // Indices sorted by mount point, then by position: a lookup is a binary search.
        var byPoint = Array(0..<entries.count)
        byPoint.sort { entries[$0].mountPoint != entries[$1].mountPoint ? entries[$0].mountPoint < entries[$1].mountPoint : $0 < $1 }
        func indices(at point: String) -> ArraySlice<Int> {
            var low = 0, high = byPoint.count
            while low < high {
                let middle = (low + high) / 2
                if entries[byPoint[middle]].mountPoint < point { low = middle + 1 } else { high = middle }
            }
            var end = low
            while end < byPoint.count, entries[byPoint[end]].mountPoint == point { end += 1 }
            return byPoint[low..<end]
        }
        var result: [MountEntry] = []
        for index in 0..<entries.count {
            let entry = entries[index]
            guard indices(at: entry.mountPoint).last == index else { continue }
            // The walk down the parents is made only when a later mount sits above: rarely.
            var chain: [Int]?
            var covered = false
            for ancestor in ancestorDirectories(of: entry.mountPoint) where !covered {
                for later in indices(at: ancestor) where later > index {
                    if chain == nil { chain = parentChain(of: index, in: entries) }
                    if !chain!.contains(later) { covered = true }
                }
            }
            if !covered { result.append(entry) }
        }
        return result
    }

    /// One entry per device: the root mount first, then the earliest; in mount order.
    public static func onePerDevice(_ entries: [MountEntry]) -> [MountEntry] {
        func device(_ entry: MountEntry) -> UInt64 { UInt64(entry.deviceMajor) << 32 | UInt64(entry.deviceMinor) }
        var byDevice = Array(0..<entries.count)
        byDevice.sort { device(entries[$0]) != device(entries[$1]) ? device(entries[$0]) < device(entries[$1]) : $0 < $1 }
        var winners: [Int] = []
        var start = 0
        while start < byDevice.count {
            var end = start
            while end < byDevice.count, device(entries[byDevice[end]]) == device(entries[byDevice[start]]) { end += 1 }
            let group = byDevice[start..<end]
            winners.append(group.first { entries[$0].root == "/" } ?? group.first!)
            start = end
        }
        winners.sort()
        return winners.map { entries[$0] }
    }

    /// Indices of the mounts under this one, up to the root of the table (cycles and
    /// unknown parents end the walk: the table is read while it may change).
    private static func parentChain(of index: Int, in entries: [MountEntry]) -> [Int] {
        var chain: [Int] = []
        var current = index
        while chain.count < entries.count,
              let parent = entries.firstIndex(where: { $0.mountID == entries[current].parentID }),
              parent != current, !chain.contains(parent) {
            chain.append(parent)
            current = parent
        }
        return chain
    }

    /// "/a/b/c" → ["/", "/a", "/a/b"]; "/" → []. On bytes: splitting Strings instantiates
    /// generic metadata at run time, which was a quarter of `list`'s start (PERFORMANCE.md).
    static func ancestorDirectories(of path: String) -> [String] {
        let bytes = Array(path.utf8)
        guard bytes.count > 1 else { return [] }
        var result = ["/"]
        var index = 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "/"), bytes[index - 1] != UInt8(ascii: "/"), index + 1 < bytes.count {
                result.append(String(decoding: bytes[0..<index], as: UTF8.self))
            }
            index += 1
        }
        return result
    }

    // Switches rather than Sets: a Set is built at first use, which cost `list` more than
    // looking a type up in a switch ever does (docs/PERFORMANCE.md).
    static func isPseudo(_ type: String) -> Bool {
        switch type {
        case "proc", "sysfs", "cgroup", "cgroup2", "devtmpfs", "devpts", "securityfs", "debugfs", "tracefs",
             "bpf", "mqueue", "hugetlbfs", "pstore", "configfs", "fusectl", "autofs", "binfmt_misc", "nsfs",
             "efivarfs", "rpc_pipefs", "selinuxfs", "smackfs", "apparmorfs", "nfsd", "sockfs", "pipefs",
             "anon_inodefs", "devfs", "usbfs", "xenfs", "openpromfs", "cpuset", "rootfs", "binder",
             "fuse.gvfsd-fuse", "fuse.portal", "fuse.lxcfs": return true
        default: return false
        }
    }

    static func isMemory(_ type: String) -> Bool {
        switch type {
        case "tmpfs", "ramfs": return true
        default: return false
        }
    }

    static func isStacked(_ type: String) -> Bool {
        switch type {
        case "overlay", "aufs", "ecryptfs", "shiftfs": return true
        default: return false
        }
    }

    static func isLoopImage(_ type: String) -> Bool {
        switch type {
        case "squashfs", "fuse.squashfuse", "fuse.snapfuse": return true
        default: return false
        }
    }

    static func isNetworkType(_ type: String) -> Bool {
        switch type {
        case "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "9p", "afs", "coda", "ceph", "glusterfs",
             "fuse.glusterfs", "lustre", "orangefs", "pvfs2", "beegfs", "gpfs", "panfs", "davfs", "sshfs",
             "fuse.sshfs", "fuse.rclone", "fuse.s3fs", "fuse.gcsfuse", "fuse.curlftpfs", "fuse.ceph-fuse",
             "fuse.juicefs": return true
        default: return false
        }
    }

    static func isLocalBlock(_ type: String) -> Bool {
        switch type {
        case "ext2", "ext3", "ext4", "xfs", "btrfs", "bcachefs", "vfat", "msdos", "exfat", "f2fs", "jfs",
             "reiserfs", "nilfs2", "iso9660", "udf", "erofs", "hfs", "hfsplus", "ntfs", "ntfs3", "minix",
             "zfs": return true
        default: return false
        }
    }
}
