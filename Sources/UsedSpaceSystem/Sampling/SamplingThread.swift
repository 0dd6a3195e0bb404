import CLinux
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
/// of the path is started meanwhile. The thread cannot say so itself: it arms `alarm` (a
/// timerfd) for the moment a sample would overrun the timeout and disarms it when the
/// sample returns, so the owner hears of overruns only (the daemon), or it asks at
/// `nextTimeoutCheck` (`watch`); either way `checkTimeout` then publishes the last numbers
/// as stale (or a failure).
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
        /// The path's sample is being taken now (not merely due, or waiting for the other
        /// members of a group's pass before it).
        var inFlight = false
        /// Sampled every other interval while quiet (`setRelaxed`).
        var relaxed = false
        /// Samples in a row whose statvfs figures were the same as the one before.
        var quietSamples = 0
        var stopped = false
    }

    /// A path with everything sampling it needs, handed between the path's own thread and a
    /// group's (one at a time; a class, so that handing it on copies nothing).
    final class SampledPath: @unchecked Sendable {
        let path: String
        /// `path` as a C string, made once (see FileStatus.of).
        let cPath: ContiguousArray<CChar>
        let shared: ConditionLock<State>
        let wake: EventCounter
        let alarm: SamplingAlarm
        let timeoutNanoseconds: UInt64
        var cache: PathCache

        init(path: String, shared: ConditionLock<State>, wake: EventCounter, alarm: SamplingAlarm, timeoutNanoseconds: UInt64,
             cache: PathCache) {
            self.path = path
            cPath = path.utf8CString
            self.shared = shared
            self.wake = wake
            self.alarm = alarm
            self.timeoutNanoseconds = timeoutNanoseconds
            self.cache = cache
        }
    }

    public let path: String
    /// Signalled when there is something to take; poll it, or attach it to an event loop.
    public let wake: EventCounter
    /// Goes off when a sample on the path's own thread overruns the timeout (a group has an
    /// alarm of its own for its passes): then call `checkTimeout`.
    public let alarm: SamplingAlarm
    private let timeoutNanoseconds: UInt64
    /// Shared with the thread, which holds it until it ends (internal: tests watch for that).
    let shared: ConditionLock<State>
    private var started = false
    /// The group that samples the path once a sample showed its filesystem cannot hang.
    private let group: SamplingGroup?
    private let initialCache: PathCache

    /// `publisher` holds the restored snapshot, if any, and the publish rule. With `group`,
    /// the path is sampled by the group's thread as soon as a sample shows it on a
    /// filesystem that cannot hang (RealFilesystems.isKnownLocal), and back on a thread of
    /// its own if it ever leads elsewhere.
    public convenience init(path: String, publisher: Publisher, intervalMicroseconds: UInt64, timeoutMicroseconds: UInt64,
                            group: SamplingGroup? = nil) throws(SystemError) {
        try self.init(path: path, publisher: publisher, intervalMicroseconds: intervalMicroseconds,
                      timeoutMicroseconds: timeoutMicroseconds, group: group, cache: PathCache())
    }

    /// With the cache given (tests: a slow one).
    init(path: String, publisher: Publisher, intervalMicroseconds: UInt64, timeoutMicroseconds: UInt64,
         group: SamplingGroup?, cache: PathCache) throws(SystemError) {
        self.path = path
        self.group = group
        initialCache = cache
        wake = try EventCounter()
        alarm = try SamplingAlarm()
        timeoutNanoseconds = timeoutMicroseconds * 1000
        shared = ConditionLock(State(publisher: publisher, intervalNanoseconds: intervalMicroseconds * 1000), sleepTimer: try SleepTimer())
    }

    deinit {
        shared.update { $0.stopped = true }
        // A group drops a stopped member at its next pass, and ends when none is left.
        group?.wakeUp()
    }

    /// Starts the thread; the first sample is taken at once.
    public func start() throws(SystemError) {
        guard !started else { return }
        let sampled = SampledPath(path: path, shared: shared, wake: wake, alarm: alarm, timeoutNanoseconds: timeoutNanoseconds,
                                  cache: initialCache)
        shared.withLock { $0.nextTick = MonotonicClock.nanoseconds() }
        if let group, Self.looksLocal(path) {
            // Sampled by the group from the first sample on: a thread of its own for one
            // sample would end right after, and a thread's end faults in libc's clean-up
            // code (resolver and RPC state) that stays resident for the daemon's life, a
            // few hundred KiB (docs/PERFORMANCE.md). Should the path lead elsewhere after
            // all, it leaves the group after that sample (or the rescue hands it the thread).
            group.join(sampled)
        } else {
            sampled.cache.fitProbe(path: path, knownLocal: Self.looksLocal(path))
            let group = self.group
            try WorkerThread.start { Self.run(sampled, group: group) }
        }
        started = true
    }

    /// Whether `path` lies on a known local filesystem (RealFilesystems.isKnownLocal) going
    /// by the mount table's text: nothing on a mounted filesystem is looked at.
    static func looksLocal(_ path: String) -> Bool {
        guard let mounts = try? MountTable.read(), let mount = MountTable.lexicalMount(of: path, in: mounts) else { return false }
        return RealFilesystems.isKnownLocal(mount.fileSystemType)
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
        let timeout = timeoutNanoseconds
        // A sample that is due but not started counts from when it was due: a group's
        // thread may be held up by another path's sample. (nextTick is 0 until start.)
        func overdue(_ state: State) -> Bool {
            guard let since = state.runningSince ?? (state.nextTick > 0 ? state.nextTick : nil) else { return false }
            return !state.runningTimedOut && now >= since + timeout
        }
        guard let inFlight = shared.withLock({ state in overdue(state) ? state.inFlight : nil }) else { return false }
        // Held up behind another member's call that hangs: the group's thread goes to that
        // member, and this path is sampled by a new one at once, not shown stale.
        if let group, group.rescue(now: now, timeout: timeout), !inFlight { return false }
        return shared.withLock { state in
            guard overdue(state) else { return false }
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

    /// A path is quiet after this many samples in a row with the same figures.
    static let quietAfter = 10

    /// Whether the path, once quiet, is sampled every other interval only (the filesystems
    /// `path = auto` found, where a change may show one interval later; the configured
    /// paths are sampled every interval). The first change brings it back to every
    /// interval: a fill is seen at once from then on.
    public func setRelaxed(_ relaxed: Bool) {
        shared.withLock { $0.relaxed = relaxed }
    }

    /// A snapshot persisted by an earlier run, read late (Publisher.adopt); returns the
    /// current snapshot afterwards.
    @discardableResult
    public func adopt(_ restored: Snapshot) -> Snapshot? {
        shared.withLock { state in
            state.publisher.adopt(restored)
            return state.publisher.current
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

    /// The current numbers again as a new snapshot (Publisher.republish).
    public func republish() -> Snapshot? {
        shared.withLock { $0.publisher.republish() }
    }

    /// The watch's last snapshot (Publisher.end); the thread stops after its current sample.
    public func end(reason: String, unmounted: Bool) -> Snapshot? {
        shared.withLock { state in
            state.stopped = true
            return state.publisher.end(reason: reason, unmounted: unmounted, watchedPath: path, at: WallClock.now())
        }
    }
}
