/// One line of `/proc/self/mountinfo` (proc(5)), with its octal escapes undone.
public struct MountEntry: Equatable, Hashable, Sendable {
    public var mountID: Int
    public var parentID: Int
    public var deviceMajor: UInt32
    public var deviceMinor: UInt32
    /// The directory of the filesystem that forms this mount's root (bind mounts, subvolumes).
    public var root: String
    public var mountPoint: String
    public var fileSystemType: String
    public var source: String
    /// The filesystem itself is read-only: `ro` among the super options (the superblock's),
    /// not among the mount's own. A read-only view of a writable filesystem (a bind mount
    /// made read-only, or a service's sandbox under ProtectSystem=strict) is not.
    public var readOnly: Bool

    public init(
        mountID: Int, parentID: Int, deviceMajor: UInt32, deviceMinor: UInt32,
        root: String, mountPoint: String, fileSystemType: String, source: String, readOnly: Bool = false
    ) {
        self.mountID = mountID
        self.parentID = parentID
        self.deviceMajor = deviceMajor
        self.deviceMinor = deviceMinor
        self.root = root
        self.mountPoint = mountPoint
        self.fileSystemType = fileSystemType
        self.source = source
        self.readOnly = readOnly
    }
}
