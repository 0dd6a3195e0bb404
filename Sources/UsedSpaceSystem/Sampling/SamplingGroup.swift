import UsedSpaceCore

/// One thread that samples several paths, each in its turn, in one wakeup: the paths on
/// filesystems known to answer from memory or a local disk (RealFilesystems.isKnownLocal).
/// A dozen filesystems (`path = auto`) then cost one wakeup per interval, not a dozen.
///
/// Each path keeps its SamplingThread (its owner's side is unchanged); its samples are
/// taken here with the same body (SamplingThread.sample), on the common grid, so paths
/// with one interval are due together. Should a member's call hang after all (a FUSE mount
/// over its path, a failing disk), the group gives its thread to that member and the others
/// get a new one (`rescue`); its `alarm` goes off only when a pass overruns the timeout.
/// The thread runs while the group has members.
public final class SamplingGroup: @unchecked Sendable {
    typealias Member = SamplingThread.SampledPath

    struct State {
        /// The members not being sampled at the moment.
        var members: [Member] = []
        /// The members of the running pass still to sample, with their intervals, from
        /// `next` on (the array is kept between passes).
        var queue: [(member: Member, interval: UInt64)] = []
        var next = 0
        /// Since when the group's thread has been in the call for one member (nil between
        /// calls).
        var inCallSince: UInt64?
        var threadRunning = false
        /// Which thread is the group's: a rescue hands the members to a new one, and the
        /// old one, whose number no longer matches, leaves with the member it was sampling.
        var generation: UInt64 = 0
        /// Wakeups that sampled at least one member, and the samples they took (tests
        /// count them: members due together are sampled in one pass), and the rescues.
        var passes: UInt64 = 0
        var samples: UInt64 = 0
        var rescues: UInt64 = 0

        var queued: ArraySlice<(member: Member, interval: UInt64)> { queue[next...] }

        mutating func clearQueue() {
            queue.removeAll(keepingCapacity: true)
            next = 0
        }
    }

    let shared: ConditionLock<State>
    /// Goes off when a pass overruns the timeout of its members.
    public let alarm: SamplingAlarm

    public init() throws(SystemError) {
        alarm = try SamplingAlarm()
        shared = ConditionLock(State(), sleepTimer: try SleepTimer())
    }

    /// Adds a member, starting the thread if it is not running.
    /// If the thread cannot be started, the member gets one of its own.
    func join(_ member: Member) {
        let generation = shared.update { state -> UInt64? in
            state.members.append(member)
            defer { state.threadRunning = true }
            return state.threadRunning ? nil : state.generation
        }
        guard let generation else { return }
        do {
            try WorkerThread.start { [self] in run(generation: generation) }
        } catch {
            shared.withLock { state in
                state.threadRunning = false
                state.members.removeAll { $0 === member }
            }
            detach(member)
        }
    }

    /// Makes the thread look at its members again: one was stopped, or its interval changed.
    func wakeUp() {
        shared.update { _ in }
    }

    /// The number of members (tests): waiting, queued for the pass, and the one in its call
    /// (out of both lists until its sample returns).
    var memberCount: Int { shared.withLock { $0.members.count + $0.queued.count + ($0.inCallSince == nil ? 0 : 1) } }
    var isThreadRunning: Bool { shared.withLock { $0.threadRunning } }
    var rescueCount: UInt64 { shared.withLock { $0.rescues } }

    /// When the group's thread has been in one member's call for `timeout` nanoseconds or
    /// more, gives the other members a new thread (see the type's comment). Called by a
    /// member's owner whose sample is overdue by the timeout; returns whether the group's
    /// thread is (or was, until now) held up, in which case a member that is not the one in
    /// the call is not to be shown stale: it is sampled at once.
    func rescue(now: UInt64, timeout: UInt64) -> Bool {
        let generation = shared.update { state -> UInt64? in
            guard let since = state.inCallSince, now >= since + timeout else { return nil }
            state.members.append(contentsOf: state.queued.map { $0.member })
            state.clearQueue()
            // Due now, and their timeouts count from now: they were only waiting.
            for member in state.members {
                member.shared.withLock { memberState in
                    memberState.runningSince = nil
                    memberState.runningTimedOut = false
                    if memberState.nextTick < now { memberState.nextTick = now }
                }
            }
            state.inCallSince = nil
            state.generation &+= 1
            state.rescues += 1
            return state.generation
        }
        guard let generation else { return false }
        do {
            try WorkerThread.start { [self] in run(generation: generation) }
        } catch {
            // No thread: the members are shown stale by their timeouts; the next join
            // tries again.
            shared.withLock { state in
                if state.generation == generation { state.threadRunning = false }
            }
        }
        return true
    }

    /// A member goes back to a thread of its own (its path now leads to a filesystem that
    /// may hang, or a sample failed and nothing is known of it); it comes back when a
    /// sample shows a local filesystem again. Should no thread start, the member is
    /// sampled no more and its owner's timeout shows it stale.
    private func detach(_ member: Member) {
        try? WorkerThread.start { [self] in SamplingThread.run(member, group: self) }
    }

    private func run(generation: UInt64) {
        var slack: UInt64 = 0
        while true {
            // The due members are queued for the pass, each marked running (their owners'
            // timeouts count from now), with the interval they are taken for.
            let pass: (interval: UInt64, timeout: UInt64)? = shared.wait { state in
                guard state.generation == generation else { return .done(nil) }
                let now = MonotonicClock.nanoseconds()
                var earliest = UInt64.max
                var waiting = 0
                var interval = UInt64.max, timeout = UInt64.max
                state.clearQueue()
                for index in state.members.indices {
                    let member = state.members[index]
                    // One lock per member: stopped (dropped), due (queued), or not yet.
                    let due: UInt64?? = member.shared.withLock { memberState in
                        if memberState.stopped { return .none }
                        guard now >= memberState.nextTick else {
                            earliest = min(earliest, memberState.nextTick)
                            return .some(nil)
                        }
                        return .some(SamplingThread.begin(&memberState, now: now))
                    }
                    switch due {
                    case .none:
                        break
                    case .some(.some(let due)):
                        state.queue.append((member, due))
                        interval = min(interval, due)
                        timeout = min(timeout, member.timeoutNanoseconds)
                    case .some(.none):
                        // Kept, in order.
                        state.members[waiting] = member
                        waiting += 1
                    }
                }
                state.members.removeLast(state.members.count - waiting)
                if state.members.isEmpty && state.queue.isEmpty {
                    state.threadRunning = false
                    return .done(nil)
                }
                guard !state.queue.isEmpty else { return .sleep(until: earliest) }
                state.passes += 1
                state.samples += UInt64(state.queue.count)
                return .done((interval, timeout))
            }
            guard let pass else { return }
            SamplingThread.setTimerSlack(for: pass.interval, current: &slack)
            // One alarm for the pass: it goes off only if the pass overruns.
            alarm.arm(at: MonotonicClock.nanoseconds() + pass.timeout)
            var readings = SamplingThread.PassReadings()
            while true {
                let next: (member: Member, interval: UInt64)? = shared.withLock { state in
                    guard state.generation == generation, state.next < state.queue.count else { return nil }
                    state.inCallSince = MonotonicClock.nanoseconds()
                    state.next += 1
                    return state.queue[state.next - 1]
                }
                guard let (member, interval) = next else { break }
                SamplingThread.sample(member, interval: interval, sharing: &readings)
                let local = member.cache.isKnownLocal
                let stillOurs = shared.withLock { state -> Bool in
                    guard state.generation == generation else { return false }
                    state.inCallSince = nil
                    if local { state.members.append(member) }
                    return true
                }
                if !stillOurs {
                    // Rescued while in this call: this thread is the member's from now on,
                    // unless its path proves local after all. (The alarm is the new
                    // thread's now.)
                    if local { join(member) } else { SamplingThread.run(member, group: self) }
                    return
                }
                if !local { detach(member) }
            }
            // Left armed when the next pass re-arms it before it could go off: one system
            // call per pass, not two. (Should no pass come, it goes off once, and every
            // member finds nothing overdue.)
            if pass.interval >= pass.timeout { alarm.disarm() }
        }
    }
}
