import CLinux
import Glibc
import UsedSpaceCore

/// Samples one path every interval on a thread of its own, decides with the path's
/// `Publisher` (the publish rule: PublishPolicy) whether a sample is news, and wakes its
/// owner only then. On a quiet filesystem that means no wakeup of the owner at all: the
/// thread wakes, makes one stat and one statvfs (the path's resolution is kept while its
/// device and inode stay the same), and sleeps again. Every sample feeds the publisher's
/// fast-fill detector, so a fill made of steps below the publish threshold is seen as soon
/// as it is sustained; on btrfs, the allocation is read from sysfs when statvfs's figures
/// moved (BtrfsAllocationReader).
///
/// A call that hangs (a dead network mount) blocks only this thread, and no second sample
/// of the path is started meanwhile. The thread cannot say so itself; the owner asks
/// `checkTimeout` at `nextTimeoutCheck`, which publishes the last numbers as stale (or a
/// failure) once the running sample has taken longer than the timeout. Threads sampling
/// paths on one filesystem share its statvfs (SharedStatistics).
///
/// Used by the daemon for every watched path and by `watch` when no daemon answers. When
/// the owner lets go of it, the thread ends after its current sample.
public final class SamplingThread {
    struct State {
        var publisher: Publisher
        var intervalNanoseconds: UInt64
        /// When the next sample is due (CLOCK_MONOTONIC ns).
        var nextTick: UInt64 = 0
        /// Snapshots published since the owner last took them, oldest first.
        var published: [Snapshot] = []
        /// A sample (or a timeout) has completed: the snapshot is not merely restored.
        var hasSampled = false
        var runningSince: UInt64?
        /// The running sample has been declared timed out (its late result still counts).
        var runningTimedOut = false
        var stopped = false
    }

    public let path: String
    /// Signalled when there is something to take; poll it, or attach it to an event loop.
    public let wake: EventCounter
    private let timeoutNanoseconds: UInt64
    /// Shared with the thread, which holds it until it ends (internal: tests watch for that).
    let shared: ConditionLock<State>
    private var started = false

    /// `publisher` holds the restored snapshot, if any, and the publish rule.
    public init(path: String, publisher: Publisher, intervalMicroseconds: UInt64, timeoutMicroseconds: UInt64) throws(SystemError) {
        self.path = path
        wake = try EventCounter()
        timeoutNanoseconds = timeoutMicroseconds * 1000
        shared = ConditionLock(State(publisher: publisher, intervalNanoseconds: intervalMicroseconds * 1000))
    }

    deinit {
        shared.update { $0.stopped = true }
    }

    /// Starts the thread; the first sample is taken at once.
    public func start() throws(SystemError) {
        guard !started else { return }
        let shared = self.shared, wake = self.wake, path = self.path
        shared.withLock { $0.nextTick = MonotonicClock.nanoseconds() }
        try WorkerThread.start { Self.run(path: path, shared, wake) }
        started = true
    }

    // MARK: - The owner's side

    /// Whether a sample (or a timeout) has completed since the thread started.
    public var hasSampled: Bool { shared.withLock { $0.hasSampled } }

    /// The snapshots published since the last call, oldest first.
    public func takePublished() -> [Snapshot] {
        wake.drain()
        return shared.withLock { state in
            defer { state.published.removeAll() }
            return state.published
        }
    }

    /// When `checkTimeout` must next be called (CLOCK_MONOTONIC ns): the moment the running
    /// sample, or the next one, would overrun the timeout. nil while a sample that already
    /// timed out is still running (its late result wakes the owner).
    public var nextTimeoutCheck: UInt64? {
        shared.withLock { state in
            if let running = state.runningSince { return state.runningTimedOut ? nil : running + timeoutNanoseconds }
            return state.nextTick + timeoutNanoseconds
        }
    }

    /// Publishes "did not answer in time" when the running sample has overrun the timeout:
    /// the last numbers marked stale, or a failure when there are none. Returns whether it
    /// published (then `takePublished` has it).
    @discardableResult
    public func checkTimeout(now: UInt64 = MonotonicClock.nanoseconds()) -> Bool {
        shared.withLock { state in
            guard let running = state.runningSince, !state.runningTimedOut, now >= running + timeoutNanoseconds else { return false }
            state.runningTimedOut = true
            state.hasSampled = true
            let current = state.publisher.current
            let sample = Sample.failed(
                .timedOut(path: current?.path ?? path, seconds: Double(timeoutNanoseconds) / 1e9), path: current?.path ?? path,
                mountPoint: current?.mountPoint, fileSystemType: current?.fileSystemType, at: WallClock.now())
            guard state.publisher.accept(sample) != .noData, let published = state.publisher.current else { return false }
            state.published.append(published)
            return true
        }
    }

    /// The publish rule from now on (a reload).
    public func setPolicy(_ policy: PublishPolicy) {
        shared.withLock { $0.publisher.policy = policy }
    }

    public func setInterval(microseconds: UInt64) {
        shared.update { state in
            state.intervalNanoseconds = microseconds * 1000
            // A shorter interval takes effect now, not after the old one has run out.
            state.nextTick = min(state.nextTick, MonotonicClock.nanoseconds() + state.intervalNanoseconds)
        }
    }

    /// Sets the current snapshot's time-to-full estimate, as the same snapshot or, with
    /// `republish`, as a new one (the next seq). Returns the current snapshot afterwards.
    @discardableResult
    public func setTimeToFull(_ estimate: TimeToFull?, republish: Bool) -> Snapshot? {
        shared.withLock { state in
            state.publisher.setTimeToFull(estimate, republish: republish)
            return state.publisher.current
        }
    }

    // MARK: - The thread

    private static func run(path: String, _ shared: ConditionLock<State>, _ wake: EventCounter) {
        var resolution: PathSampler.Resolution?
        var btrfs = BtrfsAllocationReader()
        var slack: UInt64 = 0
        while true {
            let interval: UInt64? = shared.wait { state in
                if state.stopped { return .done(nil) }
                guard MonotonicClock.nanoseconds() >= state.nextTick else { return .sleep(until: state.nextTick) }
                state.runningSince = MonotonicClock.nanoseconds()
                state.runningTimedOut = false
                return .done(state.intervalNanoseconds)
            }
            guard let interval else { return }
            // Lets the kernel coalesce this thread's wakeups with others' (a tenth of the
            // interval, at most a second).
            let wanted = min(interval / 10, 1_000_000_000)
            if wanted != slack {
                slack = wanted
                _ = clinux_set_timer_slack(UInt(slack))
            }
            var sample = PathSampler.sample(path, reusing: &resolution, sharedFor: interval / 2)
            sample = btrfs.annotate(sample, device: resolution?.device)
            let now = MonotonicClock.nanoseconds()
            let news = shared.withLock { state -> Bool in
                state.runningSince = nil
                // The next tick keeps to the schedule unless this sample overran it.
                state.nextTick = max(state.nextTick + state.intervalNanoseconds, now)
                let first = !state.hasSampled
                state.hasSampled = true
                // Every sample feeds the fast-fill detector; only news wakes the owner.
                guard state.publisher.accept(sample, monotonicNanoseconds: now) != .noData, let published = state.publisher.current else { return first }
                state.published.append(published)
                return true
            }
            if news { wake.signal() }
        }
    }
}
