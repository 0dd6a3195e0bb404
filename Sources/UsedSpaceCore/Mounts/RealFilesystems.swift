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
        networkTypes.contains(fileSystemType)
    }

    /// Local filesystems of the kernel whose statvfs answers from memory (block devices,
    /// tmpfs, the kernel's pseudo filesystems): measured directly. Anything else, FUSE above
    /// all, may hang and is measured in a child given up on after the timeout; so is autofs,
    /// whose statvfs can trigger a mount of anything.
    public static func isKnownLocal(_ fileSystemType: String) -> Bool {
        if fileSystemType == "autofs" || fileSystemType.hasPrefix("fuse") { return false }
        return localTypes.contains(fileSystemType) || memoryTypes.contains(fileSystemType)
            || pseudoTypes.contains(fileSystemType) || loopImageTypes.contains(fileSystemType)
    }

    public static func kind(of fileSystemType: String) -> Kind {
        if pseudoTypes.contains(fileSystemType) { return .pseudo }
        if networkTypes.contains(fileSystemType) { return .network }
        if memoryTypes.contains(fileSystemType) { return .memory }
        if stackedTypes.contains(fileSystemType) { return .stacked }
        if loopImageTypes.contains(fileSystemType) { return .loopImage }
        if fileSystemType == "fuse" || fileSystemType == "fuseblk" || fileSystemType.hasPrefix("fuse.") {
            return .fuse
        }
        return .local
    }

    /// The entries whose mount point shows them: not covered by a later mount on the same
    /// point or on a directory above it (unless that later mount is one they sit on).
    public static func measurable(_ entries: [MountEntry]) -> [MountEntry] {
        var indicesByPoint: [String: [Int]] = [:]
        var indexByID: [Int: Int] = [:]
        for (index, entry) in entries.enumerated() {
            indicesByPoint[entry.mountPoint, default: []].append(index)
            indexByID[entry.mountID] = index
        }
        return entries.indices.filter { index in
            let entry = entries[index]
            if indicesByPoint[entry.mountPoint]!.last! != index { return false }
            let chain = parentChain(of: index, in: entries, indexByID: indexByID)
            for ancestor in ancestorDirectories(of: entry.mountPoint) {
                for later in indicesByPoint[ancestor] ?? [] where later > index && !chain.contains(later) {
                    return false
                }
            }
            return true
        }.map { entries[$0] }
    }

    /// One entry per device: the root mount first, then the earliest; in mount order.
    public static func onePerDevice(_ entries: [MountEntry]) -> [MountEntry] {
        struct Device: Hashable { var major: UInt32, minor: UInt32 }
        var winner: [Device: Int] = [:]
        for (index, entry) in entries.enumerated() {
            let device = Device(major: entry.deviceMajor, minor: entry.deviceMinor)
            guard let current = winner[device] else {
                winner[device] = index
                continue
            }
            if entries[current].root != "/" && entry.root == "/" { winner[device] = index }
        }
        return winner.values.sorted().map { entries[$0] }
    }

    /// Indices of the mounts under this one, up to the root of the table (cycles and
    /// unknown parents end the walk: the table is read while it may change).
    private static func parentChain(of index: Int, in entries: [MountEntry], indexByID: [Int: Int]) -> Set<Int> {
        var chain: Set<Int> = []
        var current = index
        while let parent = indexByID[entries[current].parentID], parent != current, !chain.contains(parent) {
            chain.insert(parent)
            current = parent
        }
        return chain
    }

    /// "/a/b/c" → ["/", "/a", "/a/b"]; "/" → [].
    static func ancestorDirectories(of path: String) -> [String] {
        guard path != "/" else { return [] }
        var result = ["/"]
        var prefix = ""
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        for component in components.dropLast() {
            prefix += "/" + component
            result.append(prefix)
        }
        return result
    }

    static let pseudoTypes: Set<String> = [
        "proc", "sysfs", "cgroup", "cgroup2", "devtmpfs", "devpts", "securityfs", "debugfs", "tracefs",
        "bpf", "mqueue", "hugetlbfs", "pstore", "configfs", "fusectl", "autofs", "binfmt_misc", "nsfs",
        "efivarfs", "rpc_pipefs", "selinuxfs", "smackfs", "apparmorfs", "nfsd", "sockfs", "pipefs",
        "anon_inodefs", "devfs", "usbfs", "xenfs", "openpromfs", "cpuset", "rootfs", "binder",
        "fuse.gvfsd-fuse", "fuse.portal", "fuse.lxcfs",
    ]
    static let memoryTypes: Set<String> = ["tmpfs", "ramfs"]
    static let stackedTypes: Set<String> = ["overlay", "aufs", "ecryptfs", "shiftfs"]
    static let loopImageTypes: Set<String> = ["squashfs", "fuse.squashfuse", "fuse.snapfuse"]
    static let networkTypes: Set<String> = [
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "9p", "afs", "coda", "ceph", "glusterfs",
        "fuse.glusterfs", "lustre", "orangefs", "pvfs2", "beegfs", "gpfs", "panfs", "davfs", "sshfs",
        "fuse.sshfs", "fuse.rclone", "fuse.s3fs", "fuse.gcsfuse", "fuse.curlftpfs", "fuse.ceph-fuse",
        "fuse.juicefs",
    ]
    static let localTypes: Set<String> = [
        "ext2", "ext3", "ext4", "xfs", "btrfs", "bcachefs", "vfat", "msdos", "exfat", "f2fs", "jfs",
        "reiserfs", "nilfs2", "iso9660", "udf", "erofs", "hfs", "hfsplus", "ntfs", "ntfs3", "minix", "zfs",
    ]
}
