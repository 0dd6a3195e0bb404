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
/// of the path is started meanwhile. The thread cannot say so itself: it arms `alarm` (a
/// timerfd) for the moment a sample would overrun the timeout and disarms it when the
/// sample returns, so the owner hears of overruns only (the daemon), or it asks at
/// `nextTimeoutCheck` (`watch`); either way `checkTimeout` then publishes the last numbers
/// as stale (or a failure). Threads sampling paths on one filesystem share its statvfs
/// (SharedStatistics).
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
        var sampler: Sampler

        init(path: String, shared: ConditionLock<State>, wake: EventCounter, alarm: SamplingAlarm, timeoutNanoseconds: UInt64,
             sampler: Sampler) {
            self.path = path
            cPath = path.utf8CString
            self.shared = shared
            self.wake = wake
            self.alarm = alarm
            self.timeoutNanoseconds = timeoutNanoseconds
            self.sampler = sampler
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
        alarm = try SamplingAlarm()
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
        let sampled = SampledPath(path: path, shared: shared, wake: wake, alarm: alarm, timeoutNanoseconds: timeoutNanoseconds,
                                  sampler: initialSampler)
        shared.withLock { $0.nextTick = MonotonicClock.nanoseconds() }
        if let group, Self.looksLocal(path) {
            // Sampled by the group from the first sample on: a thread of its own for one
            // sample would end right after, and a thread's end faults in libc's clean-up
            // code (resolver and RPC state) that stays resident for the daemon's life, a
            // few hundred KiB (docs/PERFORMANCE.md). Should the path lead elsewhere after
            // all, it leaves the group after that sample (or the rescue hands it the thread).
            group.join(sampled)
        } else {
            sampled.sampler.fitProbe(path: path, knownLocal: Self.looksLocal(path))
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
        /// One statvfs, for the check that nothing changed (tests inject a slow one); the
        /// filesystem's read-only state comes from the resolution (FileSystemStatistics).
        var read: @Sendable (ContiguousArray<CChar>, Bool) throws(SystemError) -> FileSystemStatistics.Reading = { path, readOnly throws(SystemError) in
            try FileSystemStatistics.reading(of: path, readOnly: readOnly)
        }
        /// What the check at every sample reads, as plain values: reading them from
        /// `resolution` would cost its strings' retains.
        var quick = QuickCheck()
        /// The child that makes the path's filesystem calls, for a path on a filesystem that
        /// may hang (not RealFilesystems.isKnownLocal): the thread then never enters it, and
        /// the process can always exit. nil: the calls are made here (`measure`, `read`).
        var probe: FilesystemProbe?

        /// A full sample: through the probe, or here.
        mutating func fullSample(_ path: String, sharedFor maximumAge: UInt64) -> Sample {
            if let probe { return PathSampler.sample(path, probe: probe, reusing: &resolution) }
            return measure(path, &resolution, maximumAge)
        }

        /// A probe for a path whose filesystem may hang, none for one known local (by its
        /// last resolution, or lexically before the first).
        mutating func fitProbe(path: String, knownLocal: Bool) {
            if knownLocal {
                probe = nil
            } else if probe == nil {
                probe = FilesystemProbe(path: path)
            }
        }

        /// After a full sample: what the resolution now says.
        mutating func resolutionChanged(path: String) {
            guard let resolution else {
                quick = QuickCheck()
                return
            }
            quick.isOwnMountPoint = resolution.canonicalPath == path && resolution.mount.mountPoint == path
            quick.deviceMajor = resolution.device.major
            quick.deviceMinor = resolution.device.minor
            quick.inode = resolution.inode
            quick.isKnownLocal = RealFilesystems.isKnownLocal(resolution.mount.fileSystemType)
            quick.readOnly = resolution.mount.readOnly
        }

        var isKnownLocal: Bool { quick.isKnownLocal }
    }

    /// Of a path's resolution and last sample, what tells that a statvfs is of the same
    /// filesystem as the last full sample.
    struct QuickCheck {
        /// The `f_fsid` that went with the last full sample's figures (nil: none yet, or
        /// it failed). Another filesystem mounted at the path has another one.
        var identifier: UInt64?
        /// The path is a mount point watched by its own canonical name: no `stat` needed.
        var isOwnMountPoint = false
        var deviceMajor: UInt32 = 0
        var deviceMinor: UInt32 = 0
        var inode: UInt64 = 0
        /// RealFilesystems.isKnownLocal of its type: only those join a group.
        var isKnownLocal = false
        /// The figures of the last statvfs, to tell a quiet path.
        var statistics: FilesystemStats?
        /// The filesystem is read-only, by the mount table when the path was resolved.
        var readOnly = false
        /// statvfs's ST_RDONLY at the last reading: when it changes (a remount), the mount
        /// table is read again.
        var viewReadOnly: Bool?
        /// When the path was last resolved (its mount table read).
        var resolvedAt: UInt64 = 0

        /// How long a resolution is trusted while statvfs says read-only: a remount of the
        /// filesystem shows in no statvfs figure where the view is read-only anyway (the
        /// shipped unit's sandbox), only in the mount table.
        static let readOnlyRecheckNanoseconds: UInt64 = 60_000_000_000

        /// Whether `reading`'s read-only flag calls for the mount table to be read again.
        func mustResolveAgain(after reading: FileSystemStatistics.Reading, now: UInt64) -> Bool {
            guard let viewReadOnly else { return false }
            return reading.viewReadOnly != viewReadOnly || (reading.viewReadOnly && now >= resolvedAt + Self.readOnlyRecheckNanoseconds)
        }
    }

    /// statvfs of the path, when its resolution still holds and so the reading is of the
    /// filesystem last sampled in full; nil when it must be sampled in full. A mount point
    /// watched by its own name needs no `stat` to know that: another filesystem mounted
    /// there has another identifier, and a full sample follows.
    static func quickReading(of path: ContiguousArray<CChar>, _ quick: QuickCheck,
                             read: (ContiguousArray<CChar>, Bool) throws(SystemError) -> FileSystemStatistics.Reading,
                             sharing pass: inout PassReadings) -> FileSystemStatistics.Reading? {
        guard let identifier = quick.identifier else { return nil }
        if !quick.isOwnMountPoint {
            guard let status = try? FileStatus.of(path), status.deviceMajor == quick.deviceMajor, status.deviceMinor == quick.deviceMinor,
                  status.inode == quick.inode else { return nil }
            // The stat showed the path on that filesystem: a reading of it in this pass
            // (another path on it) is this path's too.
            if let shared = pass.reading(deviceMajor: quick.deviceMajor, deviceMinor: quick.deviceMinor), shared.identifier == identifier {
                return shared
            }
        }
        guard let reading = try? read(path, quick.readOnly), reading.identifier == identifier else { return nil }
        pass.keep(reading, deviceMajor: quick.deviceMajor, deviceMinor: quick.deviceMinor)
        return reading
    }

    /// The readings a group's pass took, by device: paths on one filesystem (directories
    /// of one disk) are read once per pass. Only a path whose `stat` put it on that device
    /// uses another's reading; a mount point watched by its own name is read itself.
    struct PassReadings {
        private var readings: [(device: UInt64, reading: FileSystemStatistics.Reading)] = []
        /// A path sampled on its own thread has no other path to share with: nothing is
        /// kept (no allocation per sample).
        private let sharing: Bool

        init(sharing: Bool = true) { self.sharing = sharing }

        func reading(deviceMajor: UInt32, deviceMinor: UInt32) -> FileSystemStatistics.Reading? {
            let device = UInt64(deviceMajor) << 32 | UInt64(deviceMinor)
            return readings.first { $0.device == device }?.reading
        }

        mutating func keep(_ reading: FileSystemStatistics.Reading, deviceMajor: UInt32, deviceMinor: UInt32) {
            guard sharing else { return }
            let device = UInt64(deviceMajor) << 32 | UInt64(deviceMinor)
            if !readings.contains(where: { $0.device == device }) { readings.append((device, reading)) }
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
    static func sample(_ sampled: SampledPath, interval: UInt64) {
        var alone = PassReadings(sharing: false)
        sample(sampled, interval: interval, sharing: &alone)
    }

    /// With the readings of the group's pass so far.
    static func sample(_ sampled: SampledPath, interval: UInt64, sharing pass: inout PassReadings) {
        let path = sampled.path, shared = sampled.shared
        shared.withLock { $0.inFlight = true }
        // Most samples are no news (a quiet filesystem, or figures that moved less than the
        // threshold): one statvfs, with the publisher's figures, decides that without
        // building a sample, at a fraction of the cost.
        var now = MonotonicClock.nanoseconds()
        var reading = quickReading(of: sampled.cPath, sampled.sampler.quick, read: sampled.sampler.read, sharing: &pass)
        if let quick = reading, sampled.sampler.quick.mustResolveAgain(after: quick, now: now) {
            // A full sample, with the mount table read again (a remount read-only or back).
            reading = nil
            sampled.sampler.resolution = nil
        }
        if let reading {
            sampled.sampler.quick.viewReadOnly = reading.viewReadOnly
            let same = reading.statistics == sampled.sampler.quick.statistics
            sampled.sampler.quick.statistics = reading.statistics
            let noNews = shared.withLock { state -> Bool in
                guard state.hasSampled, state.publisher.acceptFigures(reading.statistics, monotonicNanoseconds: now) else { return false }
                finish(&state, now: now, quiet: same)
                return true
            }
            if noNews { return }
        }
        var sampler = sampled.sampler
        defer { sampled.sampler = sampler }
        if sampler.resolution == nil { sampler.quick.resolvedAt = now }
        var sample = sampler.fullSample(path, sharedFor: interval / 2)
        sampler.resolutionChanged(path: path)
        sample = sampler.btrfs.annotate(sample, device: sampler.resolution?.device)
        sampler.quick.identifier = nil
        // Through a probe, the figures of the next sample come with the next full one: no
        // statvfs is made here (the quick check needs the identifier).
        if case .measured(let measurement) = sample, sampler.resolution != nil, sampler.probe == nil {
            // The identifier that goes with these figures: the reading above when it saw
            // them too, else one more statvfs (the first sample, or the figures moved
            // between the two calls).
            if let reading, reading.statistics == measurement.stats {
                sampler.quick.identifier = reading.identifier
                sampler.quick.viewReadOnly = reading.viewReadOnly
            } else if let again = try? sampler.read(sampled.cPath, sampler.quick.readOnly), again.statistics == measurement.stats {
                sampler.quick.identifier = again.identifier
                sampler.quick.viewReadOnly = again.viewReadOnly
            }
            sampler.quick.statistics = measurement.stats
        }
        // The detector has the quick reading's time already: the full sample goes with it.
        if reading == nil { now = MonotonicClock.nanoseconds() }
        let news = shared.withLock { state -> Bool in
            finish(&state, now: now, quiet: false)
            let first = !state.hasSampled
            state.hasSampled = true
            // Every sample feeds the fast-fill detector; only news wakes the owner.
            guard state.publisher.accept(sample, monotonicNanoseconds: now) != .noData, let published = state.publisher.current else { return first }
            state.published.append(published)
            return true
        }
        if news { sampled.wake.signal() }
    }

    /// Ends the running sample and schedules the next.
    private static func finish(_ state: inout State, now: UInt64, quiet: Bool) {
        state.runningSince = nil
        state.runningTimedOut = false
        state.inFlight = false
        state.nextTick = nextTick(after: state.nextTick, interval: state.intervalNanoseconds, now: now)
        state.quietSamples = quiet ? state.quietSamples + 1 : 0
        // Still on the grid: a relaxed path skips every other tick of it.
        if state.relaxed && state.quietSamples >= quietAfter { state.nextTick += state.intervalNanoseconds }
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
    static func run(_ sampled: SampledPath, group: SamplingGroup?) {
        var slack: UInt64 = 0
        while true {
            let interval: UInt64? = sampled.shared.wait { state in
                if state.stopped { return .done(nil) }
                let now = MonotonicClock.nanoseconds()
                guard now >= state.nextTick else { return .sleep(until: state.nextTick) }
                return .done(begin(&state, now: now))
            }
            guard let interval else { return }
            setTimerSlack(for: interval, current: &slack)
            sampled.alarm.arm(at: MonotonicClock.nanoseconds() + sampled.timeoutNanoseconds)
            sample(sampled, interval: interval)
            // Left armed when the next sample re-arms it before it could go off: one
            // system call per sample, not two.
            if interval >= sampled.timeoutNanoseconds { sampled.alarm.disarm() }
            if let group, sampled.sampler.isKnownLocal {
                sampled.alarm.disarm()
                sampled.sampler.probe = nil
                group.join(sampled)
                return
            }
            if sampled.sampler.resolution != nil { sampled.sampler.fitProbe(path: sampled.path, knownLocal: sampled.sampler.isKnownLocal) }
        }
    }
}
