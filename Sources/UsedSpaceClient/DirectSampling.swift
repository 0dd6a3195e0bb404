import UsedSpaceCore
import UsedSpaceSystem

/// `watch` without a daemon: samples on a thread of its own every interval, with the same
/// publish decision and the same timeout as the daemon, so a hung mount makes the block
/// stale instead of freezing it.
final class DirectSampling {
    let wake: EventCounter
    private let worker: BackgroundWorker<String, Sample>
    private var publisher: Publisher
    private let path: String
    private let interval: UInt64
    private let timeout: UInt64
    private(set) var nextSampleAt: UInt64
    private var startedAt: UInt64?
    private var timedOut = false

    /// Times in nanoseconds (monotonic); `interval` and `timeout` in microseconds.
    init(path: String, intervalMicroseconds: UInt64, timeoutMicroseconds: UInt64, now: UInt64) throws(SystemError) {
        wake = try EventCounter()
        worker = BackgroundWorker(wake: wake) { path in DirectSampler.sample(path) }
        publisher = Publisher(policy: PublishPolicy(), source: .direct)
        self.path = path
        interval = intervalMicroseconds * 1000
        timeout = timeoutMicroseconds * 1000
        nextSampleAt = now
    }

    /// When the loop must wake up next for this sampler.
    var nextDeadline: UInt64 {
        if let startedAt, !timedOut { return min(nextSampleAt, startedAt + timeout) }
        return nextSampleAt
    }

    /// Starts a sample when one is due (never a second one while one is stuck), and turns a
    /// sample that overran the timeout into a stale snapshot. Returns a snapshot to show.
    func tick(now: UInt64) -> Snapshot? {
        var shown: Snapshot?
        if let startedAt, !timedOut, now >= startedAt + timeout {
            timedOut = true
            let current = publisher.current
            let sample = Sample.failed(.timedOut(path: current?.path ?? path, seconds: Double(timeout) / 1e9),
                                       path: current?.path ?? path, mountPoint: current?.mountPoint,
                                       fileSystemType: current?.fileSystemType, at: WallClock.now())
            if publisher.accept(sample) != .noData { shown = publisher.current }
        }
        if now >= nextSampleAt {
            nextSampleAt = now + interval
            if !worker.isBusy, (try? worker.submit(path)) != nil {
                startedAt = now
                timedOut = false
            }
        }
        return shown
    }

    /// Applies finished samples; returns the snapshot to show when one was published.
    func collect() -> Snapshot? {
        wake.drain()
        var shown: Snapshot?
        for sample in worker.takeOutputs() {
            startedAt = nil
            timedOut = false
            if publisher.accept(sample) != .noData { shown = publisher.current }
        }
        return shown
    }
}
