/// The publish rule, in one place: keeps the last published snapshot of one path and decides,
/// for each sample, whether it is news (`PublishPolicy`: the used rate moved by at least the
/// threshold, up or down, or the state, the mount or the size changed), and what the new
/// snapshot is (the next seq; a timeout keeps the last numbers, marked stale; a watched mount
/// point found on another filesystem is "not mounted"). Pure.
///
/// Each SamplingThread (the daemon's watched paths, `watch` without a daemon) owns one and
/// applies it to every sample and timeout on its thread, waking its owner only with news;
/// nothing else decides what is published. (The only other new snapshot is the daemon's
/// time-to-full estimate changing while the numbers do not: `setTimeToFull(republish:)`.)
public struct Publisher: Sendable {
    public private(set) var current: Snapshot?
    public var policy: PublishPolicy
    public let source: SnapshotSource
    /// Set once the watched path has been seen to be a mount point of its own: from then
    /// on, finding it on another filesystem means its filesystem went away.
    private var watchesAMountPoint = false

    /// `restoring` is the snapshot persisted by an earlier run: it is served at once, marked
    /// stale until the first sample, and its `seq` carries on so clients never see it go back.
    public init(policy: PublishPolicy, source: SnapshotSource, restoring restored: Snapshot? = nil) {
        self.policy = policy
        self.source = source
        if var restored {
            restored.state = restored.stats == nil ? .failed : .stale
            restored.source = source
            current = restored
            watchesAMountPoint = restored.mountPoint == restored.path
        }
    }

    /// Sets the current snapshot's time-to-full estimate; with `republish`, as a new snapshot
    /// (the next seq), for an estimate that changed while the numbers did not.
    public mutating func setTimeToFull(_ estimate: TimeToFull?, republish: Bool) {
        guard var snapshot = current, snapshot.stats != nil else { return }
        snapshot.timeToFull = estimate
        if republish { snapshot.seq &+= 1 }
        current = snapshot
    }

    /// Applies one sample; when the decision publishes, `current` is the new snapshot.
    @discardableResult
    public mutating func accept(_ sample: Sample) -> PublishDecision {
        var sample = sample
        if case .measured(let measurement) = sample {
            if measurement.mountPoint == measurement.path {
                watchesAMountPoint = true
            } else if watchesAMountPoint {
                sample = .failed(.notMounted(path: measurement.path, underlying: measurement.mountPoint), path: measurement.path,
                                 mountPoint: nil, fileSystemType: nil, at: measurement.sampledAt)
            }
        }
        let decision = policy.decide(previous: current, sample: sample)
        guard decision != .noData else { return decision }
        let seq = (current?.seq ?? 0) &+ 1
        switch sample {
        case .measured(let measurement):
            current = Snapshot(measurement, seq: seq, source: source)
        case .failed(let error, let path, let mountPoint, let fileSystemType, let time):
            if case .timedOut = error, let previous = current, previous.stats != nil, previous.path == path {
                // The filesystem may only be slow: its last numbers are still the best we have.
                var stale = previous
                stale.state = .stale
                stale.seq = seq
                stale.error = error.description
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
}
