import UsedSpaceCore
import UsedSpaceSystem

/// `watch` without a daemon: a sampling thread (PeriodicSampler) with the same publish
/// decision and the same timeout as the daemon, so a hung mount makes the block stale
/// instead of freezing it, and a quiet filesystem does not wake the watch at all.
final class DirectSampling {
    let wake: EventCounter
    private let sampler: PeriodicSampler
    private var publisher: Publisher
    private let path: String
    private let interval: UInt64
    private let timeout: UInt64
    private let startedAt: UInt64
    private var timedOut = false

    /// Times in nanoseconds (monotonic); `interval` and `timeout` in microseconds.
    init(path: String, intervalMicroseconds: UInt64, timeoutMicroseconds: UInt64, now: UInt64) throws(SystemError) {
        wake = try EventCounter()
        sampler = PeriodicSampler(path: path, intervalMicroseconds: intervalMicroseconds, wake: wake)
        publisher = Publisher(policy: PublishPolicy(), source: .direct)
        self.path = path
        interval = intervalMicroseconds * 1000
        timeout = timeoutMicroseconds * 1000
        startedAt = now
        try sampler.start()
    }

    deinit { sampler.stop() }

    /// When the loop must look at the sampler again: the moment a running sample would
    /// overrun the timeout.
    var nextDeadline: UInt64 {
        let activity = sampler.activity
        if let running = activity.runningSince { return timedOut ? UInt64.max : running + timeout }
        if activity.lastCompletion == 0 { return startedAt + timeout }
        return activity.lastCompletion + interval + timeout
    }

    /// Turns a sample that overran the timeout into a stale snapshot to show.
    func tick(now: UInt64) -> Snapshot? {
        guard !timedOut, let running = sampler.activity.runningSince, now >= running + timeout else { return nil }
        timedOut = true
        sampler.forceNextPost()
        let current = publisher.current
        let sample = Sample.failed(.timedOut(path: current?.path ?? path, seconds: Double(timeout) / 1e9),
                                   path: current?.path ?? path, mountPoint: current?.mountPoint,
                                   fileSystemType: current?.fileSystemType, at: WallClock.now())
        return publisher.accept(sample) != .noData ? publisher.current : nil
    }

    /// Applies what the sampler posted; returns the snapshot to show when one was published.
    func collect() -> Snapshot? {
        wake.drain()
        var shown: Snapshot?
        for sample in sampler.takeSamples() {
            timedOut = false
            if publisher.accept(sample) != .noData { shown = publisher.current }
        }
        return shown
    }
}
