import UsedSpaceCore

/// Adds the quota that binds (Quota.binding) to the samples of one path. The limits are
/// read at the first sample of a filesystem and then once a minute, to see a limit set;
/// while the filesystem has a limit, at every sample (what counts against it moves where
/// statvfs's figures do not: a btrfs qgroup counts a write at the transaction's commit,
/// seconds after statvfs showed it, and a limit may be lifted). A filesystem without
/// quotas costs one read a minute.
public struct QuotaTracker {
    public static let refreshNanoseconds: UInt64 = 60_000_000_000

    private var identity: (mountPoint: String?, type: String?)?
    private var readAt: UInt64?
    private var quotas: [Quota] = []

    public init() {}

    /// `sample` with its quota. Reads touch the path's filesystem: call this where sampling
    /// it may block, and never for a filesystem that may hang (its probe samples it).
    /// `btrfs`: the filesystem's sysfs directory, as BtrfsAllocationReader found it.
    public mutating func annotate(_ sample: Sample, btrfs: BtrfsSysfs?, now: UInt64 = MonotonicClock.nanoseconds()) -> Sample {
        guard case .measured(var measurement) = sample else {
            forget()
            return sample
        }
        if identity.map({ $0.mountPoint != measurement.mountPoint || $0.type != measurement.fileSystemType }) ?? true {
            forget()
            identity = (measurement.mountPoint, measurement.fileSystemType)
        }
        if isDue(now: now) || readAt == nil {
            quotas = QuotaReader.read(at: measurement.path, fileSystemType: measurement.fileSystemType ?? "",
                                       sysfs: measurement.fileSystemType == "btrfs" ? btrfs : nil)
            readAt = now
        }
        measurement.quota = Quota.binding(quotas, on: measurement.stats)
        return .measured(measurement)
    }

    /// Whether the limits are due to be read again (there is one, or a minute has passed
    /// since the last read): the sampler then takes a full sample, not its quick statvfs.
    public func isDue(now: UInt64) -> Bool {
        guard let readAt else { return false }
        return !quotas.isEmpty || now < readAt || now - readAt >= Self.refreshNanoseconds
    }

    private mutating func forget() {
        identity = nil
        readAt = nil
        quotas = []
    }
}
