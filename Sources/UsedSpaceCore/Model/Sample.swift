/// One successful measurement of a path.
public struct Measurement: Equatable, Sendable {
    /// The canonical absolute path that was measured.
    public var path: String
    /// nil when the mount table does not show the path's mount (a bare chroot, a table
    /// that cannot be read): statvfs still answers, as df's `-`.
    public var mountPoint: String?
    public var fileSystemType: String?
    public var stats: FilesystemStats
    public var sampledAt: Timestamp
    /// How a btrfs filesystem has allocated its devices (read from sysfs beside the
    /// statvfs); nil on other filesystems, or when it could not be read.
    public var btrfs: BtrfsAllocation?
    /// A quota that leaves less room than the filesystem (Quota.binding); nil when the
    /// filesystem is the limit.
    public var quota: Quota?

    public init(path: String, mountPoint: String?, fileSystemType: String?, stats: FilesystemStats, sampledAt: Timestamp) {
        self.path = path
        self.mountPoint = mountPoint
        self.fileSystemType = fileSystemType
        self.stats = stats
        self.sampledAt = sampledAt
    }

    /// The figures of what the user runs into first: the quota's when one binds, else df's.
    /// How full it is (the bar, the levels, the estimates) is judged on these.
    public var limitingStats: FilesystemStats { quota?.asFilesystemStats(readOnly: stats.readOnly) ?? stats }
}

/// The outcome of sampling a path once: numbers, or the reason there are none.
public enum Sample: Equatable, Sendable {
    case measured(Measurement)
    /// `mountPoint` and `fileSystemType` are set when the failure came after the mount was known.
    case failed(SampleError, path: String, mountPoint: String?, fileSystemType: String?, at: Timestamp)

    public var path: String {
        switch self {
        case .measured(let measurement): return measurement.path
        case .failed(_, let path, _, _, _): return path
        }
    }
}
