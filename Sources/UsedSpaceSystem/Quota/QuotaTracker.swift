import UsedSpaceCore

/// Adds the quota that binds (Quota.binding) to the samples of one path. The limits are
/// read at the first sample of a filesystem and then once a minute, to see a limit set or
/// lifted; while the filesystem has a limit, at every sample whose figures moved, and on
/// btrfs at every sample (a qgroup counts a write at the transaction's commit, seconds
/// after statvfs has shown it). A filesystem without quotas costs one read a minute.
public struct QuotaTracker {
    public static let refreshNanoseconds: UInt64 = 60_000_000_000

    private var identity: (mountPoint: String, type: String)?
    private var sysfs: BtrfsSysfs?
    private var readAt: UInt64?
    private var readFor: FilesystemStats?
    private var quotas: [Quota] = []

    public init() {}

    /// `sample` with its quota. Reads touch the path's filesystem: call this where sampling
    /// it may block, and never for a filesystem that may hang (its probe samples it).
    public mutating func annotate(_ sample: Sample, now: UInt64 = MonotonicClock.nanoseconds()) -> Sample {
        guard case .measured(var measurement) = sample else {
            forget()
            return sample
        }
        if identity.map({ $0.mountPoint != measurement.mountPoint || $0.type != measurement.fileSystemType }) ?? true {
            forget()
            identity = (measurement.mountPoint, measurement.fileSystemType)
            if measurement.fileSystemType == "btrfs" { sysfs = BtrfsSysfs.find(for: measurement.path) }
        }
        let stale = readAt.map { now < $0 || now - $0 >= Self.refreshNanoseconds } ?? true
        let limited = !quotas.isEmpty && (measurement.fileSystemType == "btrfs" || readFor != measurement.stats)
        if stale || limited {
            quotas = QuotaReader.read(at: measurement.path, fileSystemType: measurement.fileSystemType, sysfs: sysfs)
            readAt = now
            readFor = measurement.stats
        }
        measurement.quota = Quota.binding(quotas, on: measurement.stats)
        return .measured(measurement)
    }

    /// Whether the limits are due to be read again (a minute since the last read): the
    /// sampler then takes a full sample instead of its quick statvfs.
    public func isDue(now: UInt64) -> Bool {
        readAt.map { now >= $0 && now - $0 >= Self.refreshNanoseconds } ?? false
    }

    private mutating func forget() {
        identity = nil
        sysfs = nil
        readAt = nil
        readFor = nil
        quotas = []
    }
}
