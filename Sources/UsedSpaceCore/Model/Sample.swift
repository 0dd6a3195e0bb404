/// One successful measurement of a path.
public struct Measurement: Equatable, Sendable {
    /// The canonical absolute path that was measured.
    public var path: String
    public var mountPoint: String
    public var fileSystemType: String
    public var stats: FilesystemStats
    public var sampledAt: Timestamp
    /// How a btrfs filesystem has allocated its devices (read from sysfs beside the
    /// statvfs); nil on other filesystems, or when it could not be read.
    public var btrfs: BtrfsAllocation?

    public init(path: String, mountPoint: String, fileSystemType: String, stats: FilesystemStats, sampledAt: Timestamp) {
        self.path = path
        self.mountPoint = mountPoint
        self.fileSystemType = fileSystemType
        self.stats = stats
        self.sampledAt = sampledAt
    }
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
