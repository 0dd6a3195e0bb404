import UsedSpaceCore
import UsedSpaceSystem

/// One watched path: its publisher (the last snapshot and the publish decision), the
/// thread that samples it, and the timer that checks on that thread (a hung statvfs).
final class Watch {
    /// As configured (`~/…` allowed); identifies the watch across reloads.
    let configuredPath: String
    /// With `~` expanded; sampling resolves it further (symlinks) each time.
    let path: String
    var publisher: Publisher
    let sampler: PeriodicSampler
    var checkTimer: TimerEventSource?
    /// True once a sample (or a timeout) has been applied: the snapshot is not merely restored.
    var hasSampled = false
    /// Set when the running sample outlived the timeout; the late result is still applied.
    var timedOut = false
    /// Free space over time, for the time-to-full estimate, and the filesystem it is of.
    var history = UsageHistory()
    var historyFileSystem: String?
    /// Renderings of the current snapshot by view, so a publish to a thousand subscribers
    /// renders each view once. Cleared whenever the snapshot changes.
    var renderings: [String: [String]] = [:]

    init(configuredPath: String, path: String, policy: PublishPolicy, restoring: Snapshot?,
         intervalMicroseconds: UInt64, wake: EventCounter) {
        self.configuredPath = configuredPath
        self.path = path
        publisher = Publisher(policy: policy, source: .daemon, restoring: restoring)
        sampler = PeriodicSampler(path: path, intervalMicroseconds: intervalMicroseconds, wake: wake)
    }

    deinit { sampler.stop() }

    var snapshot: Snapshot? { publisher.current }

    func lines(for view: ViewRequest) -> [String] {
        guard let snapshot else { return [] }
        let key = view.format.name + (view.details ? "+details" : "")
        if let cached = renderings[key] { return cached }
        let lines = SnapshotView.lines(snapshot, format: view.format, details: view.details)
        renderings[key] = lines
        return lines
    }

    /// Whether a request for `requested` (a canonical path from a client) means this watch.
    func matches(_ requested: String) -> Bool {
        requested == path || requested == snapshot?.path
    }

    /// The sample that stands for "statvfs did not answer in time".
    func timeoutSample(seconds: Double, at time: Timestamp) -> Sample {
        let current = snapshot
        return .failed(.timedOut(path: current?.path ?? path, seconds: seconds), path: current?.path ?? path,
                       mountPoint: current?.mountPoint, fileSystemType: current?.fileSystemType, at: time)
    }
}
