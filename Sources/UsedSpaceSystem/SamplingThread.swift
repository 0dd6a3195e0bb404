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
/// the owner lets go of it, the thread ends after its current sample. Given a
/// SamplingGroup (the daemon), the path is sampled by the group's one thread while it is
/// on a filesystem that cannot hang, with the same body (`sample`); this class's API to
/// the owner is the same either way.
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
    /// The group that samples the path once a sample showed its filesystem cannot hang.
    private let group: SamplingGroup?
    private let initialSampler: Sampler

    /// `publisher` holds the restored snapshot, if any, and the publish rule. With `group`,
    /// the path is sampled by the group's thread as soon as a sample shows it on a
    /// filesystem that cannot hang (RealFilesystems.isKnownLocal), and back on a thread of
    /// its own if it ever leads elsewhere.
    public convenience init(path: String, publisher: Publisher, intervalMicroseconds: UInt64, timeoutMicroseconds: UInt64,
                            group: SamplingGroup? = nil) throws(SystemError) {
        try self.init(path: path, publisher: publisher, intervalMicroseconds: intervalMicroseconds,
                      timeoutMicroseconds: timeoutMicroseconds, group: group, sampler: Sampler())
    }

    /// With the sampler given (tests: a slow one).
    init(path: String, publisher: Publisher, intervalMicroseconds: UInt64, timeoutMicroseconds: UInt64,
         group: SamplingGroup?, sampler: Sampler) throws(SystemError) {
        self.path = path
        self.group = group
        initialSampler = sampler
        wake = try EventCounter()
        timeoutNanoseconds = timeoutMicroseconds * 1000
        shared = ConditionLock(State(publisher: publisher, intervalNanoseconds: intervalMicroseconds * 1000))
    }

    deinit {
        shared.update { $0.stopped = true }
        // A group drops a stopped member at its next pass, and ends when none is left.
        group?.wakeUp()
    }

    /// Starts the thread; the first sample is taken at once.
    public func start() throws(SystemError) {
        guard !started else { return }
        let shared = self.shared, wake = self.wake, path = self.path, group = self.group, sampler = self.initialSampler
        shared.withLock { $0.nextTick = MonotonicClock.nanoseconds() }
        try WorkerThread.start { Self.run(path: path, shared, wake, sampler: sampler, group: group) }
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
    /// timed out is still running or waiting to start (its late result wakes the owner).
    public var nextTimeoutCheck: UInt64? {
        shared.withLock { state in
            state.runningTimedOut ? nil : (state.runningSince ?? state.nextTick) + timeoutNanoseconds
        }
    }

    /// Publishes "did not answer in time" when the running sample has overrun the timeout:
    /// the last numbers marked stale, or a failure when there are none. Returns whether it
    /// published (then `takePublished` has it).
    @discardableResult
    public func checkTimeout(now: UInt64 = MonotonicClock.nanoseconds()) -> Bool {
        shared.withLock { state in
            // A sample that is due but not started counts from when it was due: a group's
            // thread may be held up by another path's sample.
            // (nextTick is 0 until start.)
            guard let since = state.runningSince ?? (state.nextTick > 0 ? state.nextTick : nil),
                  !state.runningTimedOut, now >= since + timeoutNanoseconds else { return false }
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
        group?.wakeUp()
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

    /// What sampling one path keeps from one sample to the next, besides the shared state:
    /// it moves with the path between its own thread and a group's. (Unchecked: it is handed
    /// from one thread to the next, never used by two at once.)
    struct Sampler: @unchecked Sendable {
        var resolution: PathSampler.Resolution?
        var btrfs = BtrfsAllocationReader()
        /// Samples a path (tests inject a slow one): PathSampler's stat + statvfs.
        var measure: @Sendable (String, inout PathSampler.Resolution?, UInt64) -> Sample = { path, resolution, maximumAge in
            PathSampler.sample(path, reusing: &resolution, sharedFor: maximumAge)
        }
        /// Whether the filesystem last resolved is one whose statvfs does not go to a server
        /// or a FUSE daemon (RealFilesystems.isKnownLocal): only those join a group.
        var isKnownLocal: Bool {
            guard let type = resolution?.mount.fileSystemType else { return false }
            return RealFilesystems.isKnownLocal(type)
        }
    }

    /// Marks the sample due now as running (with the lock held): from now on `checkTimeout`
    /// measures it. Returns the interval it is taken for.
    static func begin(_ state: inout State, now: UInt64) -> UInt64 {
        state.runningSince = now
        return state.intervalNanoseconds
    }

    /// Takes the sample `begin` started, feeds it to the publisher and wakes the owner when
    /// it is news: the body of a sampling thread's loop and of a group's, for one path.
    static func sample(path: String, _ shared: ConditionLock<State>, _ wake: EventCounter, with sampler: inout Sampler,
                       interval: UInt64) {
        var sample = sampler.measure(path, &sampler.resolution, interval / 2)
        sample = sampler.btrfs.annotate(sample, device: sampler.resolution?.device)
        let now = MonotonicClock.nanoseconds()
        let news = shared.withLock { state -> Bool in
            state.runningSince = nil
            state.runningTimedOut = false
            state.nextTick = nextTick(after: state.nextTick, interval: state.intervalNanoseconds, now: now)
            let first = !state.hasSampled
            state.hasSampled = true
            // Every sample feeds the fast-fill detector; only news wakes the owner.
            guard state.publisher.accept(sample, monotonicNanoseconds: now) != .noData, let published = state.publisher.current else { return first }
            state.published.append(published)
            return true
        }
        if news { wake.signal() }
    }

    /// The next tick keeps to the schedule unless the sample overran it, and falls on the
    /// grid of multiples of the interval (from `gridPhase`): paths sampled at the same
    /// interval are due at the same moments, so a group samples them in one wakeup.
    static func nextTick(after tick: UInt64, interval: UInt64, now: UInt64) -> UInt64 {
        let next = max(tick + interval, now)
        guard interval > 0, next >= gridPhase else { return next }
        let remainder = (next - gridPhase) % interval
        return remainder == 0 ? next : next + (interval - remainder)
    }

    /// Where this process's grid starts: its first use, not zero, so that processes do
    /// not all wake at the same whole seconds of the monotonic clock.
    static let gridPhase = MonotonicClock.nanoseconds()

    /// Sets the calling thread's timer slack for `interval`, when it changed: it lets the
    /// kernel coalesce the thread's wakeups with others' (a tenth of the interval, at most
    /// a second).
    static func setTimerSlack(for interval: UInt64, current slack: inout UInt64) {
        let wanted = min(interval / 10, 1_000_000_000)
        if wanted != slack {
            slack = wanted
            _ = clinux_set_timer_slack(UInt(slack))
        }
    }

    /// A thread of its own: samples until stopped, or until a sample shows the path on a
    /// filesystem that cannot hang and `group` takes it over.
    static func run(path: String, _ shared: ConditionLock<State>, _ wake: EventCounter, sampler initial: Sampler,
                    group: SamplingGroup?) {
        var sampler = initial
        var slack: UInt64 = 0
        while true {
            let interval: UInt64? = shared.wait { state in
                if state.stopped { return .done(nil) }
                let now = MonotonicClock.nanoseconds()
                guard now >= state.nextTick else { return .sleep(until: state.nextTick) }
                return .done(begin(&state, now: now))
            }
            guard let interval else { return }
            setTimerSlack(for: interval, current: &slack)
            sample(path: path, shared, wake, with: &sampler, interval: interval)
            if let group, sampler.isKnownLocal {
                group.join(SamplingGroup.Member(path: path, shared: shared, wake: wake, sampler: sampler))
                return
            }
        }
    }
}
