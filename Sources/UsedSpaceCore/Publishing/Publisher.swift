/// The publish rule, in one place: keeps the last published snapshot of one path and decides,
/// for each sample, whether it is news (`PublishPolicy`: the used rate moved by at least the
/// threshold, up or down, or the state, the mount or the size changed; a btrfs allocation
/// figure moved by the threshold's share of the devices, or its metadata level changed; the
/// fast-fill detector's verdict appeared, changed its text or ended), and what the new
/// snapshot is (the next seq; a timeout keeps the last numbers, marked stale; a watched mount
/// point found on another filesystem is "not mounted"). Pure.
///
/// Each SamplingThread (the daemon's watched paths, `watch` without a daemon) owns one and
/// applies it to every sample and timeout on its thread, waking its owner only with news.
/// Every snapshot of the path is made here: besides the samples' and timeouts', the same
/// numbers again with the next seq (`republish`: the daemon's time-to-full outlook changed)
/// and the last one of a watch that ends (`end`).
public struct Publisher: Sendable {
    public private(set) var current: Snapshot?
    public var policy: PublishPolicy {
        // The last sample's decision was made under the old rule.
        didSet {
            guard policy != oldValue else { return }
            lastMeasured = nil
            figuresDecide = false
        }
    }
    public let source: SnapshotSource
    /// Set once the watched path has been seen to be a mount point of its own: from then
    /// on, finding it on another filesystem means its filesystem went away.
    private var watchesAMountPoint = false
    /// Fed every sample that has a time (between publishes too: the publish threshold hides
    /// the small steps a fill is made of), so a fast fill is news as soon as it is seen.
    private var fillDetector = FillDetector()
    /// The filesystem the detector's samples are of (mount point and type; not the size,
    /// which on some filesystems, ZFS datasets, shrinks as the pool fills): another one
    /// starts it over.
    private var fillMountPoint: String?
    /// The detector watches the space under this quota's limit (nil: the filesystem's).
    private var fillQuota: Quota.Kind?
    private var fillType: String?
    private let metadataPolicy = BtrfsMetadataPolicy()
    /// The figures of the last sample accepted, when it was measured and left the current
    /// snapshot fresh: a sample with the same figures is decided as it was
    /// (`acceptFigures`).
    private var lastMeasured: FilesystemStats?
    /// The last sample was measured at the current snapshot's path, mount point and type,
    /// off btrfs: a sample there with other figures is decided on the figures alone.
    private var figuresDecide = false

    /// `restoring` is the snapshot persisted by an earlier run: it is served at once, marked
    /// stale until the first sample, and its `seq` carries on so clients never see it go back.
    public init(policy: PublishPolicy, source: SnapshotSource, restoring restored: Snapshot? = nil) {
        self.policy = policy
        self.source = source
        if var restored {
            restored.state = restored.stats == nil ? .failed : .stale
            restored.source = source
            restored.fastFill = nil
            current = restored
            watchesAMountPoint = restored.mountPoint == restored.path
        }
    }

    /// The seq of a snapshot persisted by an earlier run that was adopted after this run had
    /// published (`adopt`): the next publish comes after it.
    private var adoptedSeq: UInt64 = 0

    /// The seq the next published snapshot gets: never back, across restarts too.
    private var nextSeq: UInt64 { max(current?.seq ?? 0, adoptedSeq) &+ 1 }

    /// A snapshot persisted by an earlier run that arrived late (its file answered after the
    /// start-up deadline): served as `restoring` serves it while nothing else is, and in any
    /// case its `seq` carries on.
    public mutating func adopt(_ restored: Snapshot) {
        guard current == nil else {
            adoptedSeq = max(adoptedSeq, restored.seq)
            return
        }
        let policy = self.policy
        self = Publisher(policy: policy, source: source, restoring: restored)
    }

    /// The current numbers as a new snapshot (the next seq), for what the owner adds to them
    /// that changed while they did not; nil without numbers.
    public mutating func republish() -> Snapshot? {
        guard var snapshot = current, snapshot.stats != nil else { return nil }
        snapshot.seq = nextSeq
        current = snapshot
        return snapshot
    }

    /// The last snapshot of a watch that ends (its filesystem unmounted, or no longer
    /// configured): failed, with the reason, marked `watchEnded`, the next seq; nil when
    /// nothing was ever published. After it, nothing more is.
    public mutating func end(reason: String, unmounted: Bool, watchedPath: String, at time: Timestamp) -> Snapshot? {
        guard var last = current else { return nil }
        last.state = .failed
        last.stats = nil
        last.timeToFull = nil
        last.fastFill = nil
        last.btrfs = nil
        last.error = reason
        last.notMounted = unmounted
        // A sample may have seen the mount point empty before the table was read again.
        if unmounted && last.mountPoint == nil { last.mountPoint = watchedPath }
        last.watchEnded = true
        last.seq = nextSeq
        last.sampledAt = time
        current = last
        return last
    }

    /// Applies one sample; when the decision publishes, `current` is the new snapshot.
    /// `monotonicNanoseconds` is when it was taken (CLOCK_MONOTONIC), for the fast-fill
    /// detector; a sample without it is not fed to the detector.
    @discardableResult
    public mutating func accept(_ sample: Sample, monotonicNanoseconds: UInt64? = nil) -> PublishDecision {
        let decision = decide(sample, monotonicNanoseconds: monotonicNanoseconds)
        lastMeasured = nil
        figuresDecide = false
        if case .measured(let measurement) = sample, let current, current.state == .fresh, current.notMounted != true {
            lastMeasured = measurement.stats
            figuresDecide = current.path == measurement.path && current.mountPoint == measurement.mountPoint
                && current.fileSystemType == measurement.fileSystemType && current.btrfs == nil && measurement.btrfs == nil
                && current.quota == nil && measurement.quota == nil
        }
        return decision
    }

    /// Applies a sample of the same filesystem at the same path (the sampling thread's
    /// resolution holds and statvfs names the same filesystem) whose figures are
    /// `statistics`, without building it, when it is no news: what a sampling thread does
    /// at most samples, in a fraction of `accept`'s cost. True: the sample is no news
    /// (`accept` would have said `.noData`), and the fast-fill detector has it. False: it
    /// cannot tell, or it is news; then `accept` the full sample, at the same time.
    ///
    /// Decided as `PublishPolicy.decide` decides a measured sample: figures that equal the
    /// last sample's get the last sample's decision (which was .noData, or made the current
    /// snapshot of them); other figures are no news while the size and read-only state are the same, the used
    /// rate moved less than the threshold from the current snapshot's, and the detector's
    /// verdict reads the same (not on btrfs, whose allocation comes with the full sample,
    /// nor under a quota, which does too).
    public mutating func acceptFigures(_ statistics: FilesystemStats, monotonicNanoseconds: UInt64) -> Bool {
        guard let lastMeasured, let current, current.state == .fresh else { return false }
        if lastMeasured != statistics {
            guard figuresDecide, let previous = current.stats, previous.totalBytes == statistics.totalBytes,
                  previous.readOnly == statistics.readOnly,
                  let previousRate = previous.usedFraction, let rate = statistics.usedFraction,
                  !rate.differs(from: previousRate, byAtLeast: policy.threshold)
            else { return false }
        }
        let before = fillDetector.verdict
        let after = fillDetector.observe(seconds: Double(monotonicNanoseconds) / 1e9, availableBytes: statistics.freeBytes)
        // The last sample's verdict reads as the current snapshot's (else it would have
        // been news): the same verdict now is no news either.
        guard before?.description == after?.description else { return false }
        self.lastMeasured = statistics
        return true
    }

    private mutating func decide(_ sample: Sample, monotonicNanoseconds: UInt64?) -> PublishDecision {
        var sample = sample
        var fill: FastFill?
        if case .measured(var measurement) = sample {
            if measurement.mountPoint == measurement.path {
                watchesAMountPoint = true
            } else if watchesAMountPoint, let underlying = measurement.mountPoint {
                sample = .failed(.notMounted(path: measurement.path, underlying: underlying), path: measurement.path,
                                 mountPoint: nil, fileSystemType: nil, at: measurement.sampledAt)
            }
            if case .measured = sample {
                if var btrfs = measurement.btrfs {
                    btrfs.metadataLevel = metadataPolicy.level(of: btrfs, previous: current?.btrfs?.metadataLevel ?? .ok)
                    measurement.btrfs = btrfs
                    sample = .measured(measurement)
                }
                fill = observeFill(measurement, at: monotonicNanoseconds)
            }
        }
        let decision = policy.decide(previous: current, sample: sample, fastFill: fill)
        guard decision != .noData else { return decision }
        let seq = nextSeq
        switch sample {
        case .measured(let measurement):
            current = Snapshot(measurement, seq: seq, source: source)
            current?.fastFill = fill
        case .failed(let error, let path, let mountPoint, let fileSystemType, let time):
            if case .timedOut = error, let previous = current, previous.stats != nil, previous.path == path {
                // The filesystem may only be slow: its last numbers are still the best we have.
                var stale = previous
                stale.state = .stale
                stale.seq = seq
                stale.error = error.description
                stale.fastFill = nil
                current = stale
            } else {
                current = Snapshot(
                    path: path, mountPoint: mountPoint, fileSystemType: fileSystemType, stats: nil,
                    state: .failed, seq: seq, sampledAt: time, source: source, error: error.description
                )
                switch error {
                case .notMounted, .pathNotFound: current?.notMounted = true
                default: break
                }
            }
        }
        return decision
    }

    private mutating func observeFill(_ measurement: Measurement, at monotonicNanoseconds: UInt64?) -> FastFill? {
        if measurement.mountPoint != fillMountPoint || measurement.fileSystemType != fillType || measurement.quota?.kind != fillQuota {
            fillDetector.reset()
            fillQuota = measurement.quota?.kind
            fillMountPoint = measurement.mountPoint
            fillType = measurement.fileSystemType
        }
        guard let monotonicNanoseconds else { return nil }
        return fillDetector.observe(seconds: Double(monotonicNanoseconds) / 1e9, availableBytes: measurement.limitingStats.freeBytes)
    }
}
