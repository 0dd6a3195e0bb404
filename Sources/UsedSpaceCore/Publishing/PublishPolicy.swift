/// Decides, for the last published snapshot and a new sample, whether to publish.
///
/// Unlike the original widget, which compared `newRate - usedRate < 0.0001` and so never
/// reported space being freed, the distance is absolute: decreases publish too.
public struct PublishPolicy: Equatable, Sendable {
    /// The least change of the used rate that publishes, as an exact fraction (default 1/10000).
    public var threshold: Fraction

    public static let defaultThreshold = Fraction(numerator: 1, denominator: 10_000)

    public init(threshold: Fraction = PublishPolicy.defaultThreshold) {
        self.threshold = threshold
    }

    public func decide(previous: Snapshot?, sample: Sample) -> PublishDecision {
        decide(previous: previous, sample: sample, fastFill: previous?.fastFill)
    }

    /// With the fast-fill detector's verdict on the sample: a fill that appears, ends or
    /// reads differently ("filling at 120 MB/s — full in about 6 minutes") is news too.
    public func decide(previous: Snapshot?, sample: Sample, fastFill: FastFill?) -> PublishDecision {
        switch sample {
        case .failed(let error, _, _, _, _):
            if let previous, previous.state != .fresh, previous.error == error.description {
                return .noData
            }
            return .failed
        case .measured(let measurement):
            guard let previous, previous.state == .fresh,
                  previous.path == measurement.path,
                  previous.mountPoint == measurement.mountPoint,
                  previous.fileSystemType == measurement.fileSystemType,
                  let previousStats = previous.stats,
                  previousStats.totalBytes == measurement.stats.totalBytes,
                  previousStats.readOnly == measurement.stats.readOnly,
                  let previousRate = previousStats.usedFraction,
                  let newRate = measurement.stats.usedFraction
            else { return .newData }
            if newRate.differs(from: previousRate, byAtLeast: threshold) { return .newData }
            if quotaMoved(from: previous.quota, to: measurement.quota) { return .newData }
            if fastFill?.description != previous.fastFill?.description { return .newData }
            return btrfsMoved(from: previous.btrfs, to: measurement.btrfs) ? .newData : .noData
        }
    }

    /// Whether the quota that binds changed: another one (or none), another limit, or its used
    /// rate by the threshold, as the filesystem's must.
    func quotaMoved(from old: Quota?, to new: Quota?) -> Bool {
        guard let old, let new else { return (old == nil) != (new == nil) }
        guard old.kind == new.kind, old.limitBytes == new.limitBytes,
              let before = old.asFilesystemStats().usedFraction, let after = new.asFilesystemStats().usedFraction else { return true }
        return after.differs(from: before, byAtLeast: threshold)
    }

    /// Whether a btrfs allocation changed enough to show: its metadata level, its profiles,
    /// or one of its figures by at least the threshold's share of the devices (0.01 % of a
    /// 1 TB disk is 100 MB; chunks come in 256 MiB to 1 GiB), as the used rate must.
    func btrfsMoved(from old: BtrfsAllocation?, to new: BtrfsAllocation?) -> Bool {
        guard let old, let new else { return (old == nil) != (new == nil) }
        if old.metadataLevel != new.metadataLevel || old.isMixed != new.isMixed || old.data.profiles != new.data.profiles
            || old.metadata.profiles != new.metadata.profiles { return true }
        // Figure by figure, without building a collection: this runs at every sample.
        let limit = UInt128(threshold.numerator) * UInt128(max(new.deviceBytes, 1))
        func moved(_ a: UInt64, _ b: UInt64) -> Bool {
            a != b && UInt128(a > b ? a - b : b - a) * UInt128(threshold.denominator) >= limit
        }
        return moved(old.deviceBytes, new.deviceBytes) || moved(old.unallocatedBytes, new.unallocatedBytes)
            || moved(old.data.totalBytes, new.data.totalBytes) || moved(old.data.usedBytes, new.data.usedBytes)
            || moved(old.metadata.totalBytes, new.metadata.totalBytes) || moved(old.metadata.usedBytes, new.metadata.usedBytes)
            || moved(old.system.totalBytes, new.system.totalBytes) || moved(old.globalReserveBytes, new.globalReserveBytes)
    }
}
