import UsedSpaceCore

/// One thread that samples several paths, each in its turn, in one wakeup: for the paths on
/// filesystems whose statvfs answers from the kernel's memory (block devices, tmpfs:
/// RealFilesystems.isKnownLocal). A daemon watching a dozen filesystems (`path = auto`)
/// then wakes once per interval, not a dozen times: a thread per path cost it three times
/// i3status's CPU at idle, a quarter of it in task switches (docs/PERFORMANCE.md).
///
/// Each path keeps its SamplingThread, whose owner's side is unchanged (its wake counter,
/// its publisher, its timeout): the SamplingThread takes its first sample on a thread of
/// its own, and joins the group when that sample shows its filesystem to be known local.
/// The group's thread sleeps until the earliest member is due, then samples every member
/// that is due with the same body a SamplingThread runs (SamplingThread.sample). Members'
/// schedules fall on a common grid (multiples of the interval from
/// SamplingThread.gridPhase), so members with the same interval are due together. A member whose path later resolves to a filesystem that may
/// hang (a symlink changed, another filesystem mounted there) goes back to a thread of its
/// own after that sample.
///
/// Nothing that can reach a network or FUSE filesystem runs here, by that rule. Should a
/// local statvfs block all the same (a failing disk), the members behind it wait: each due
/// member is marked running when the pass starts, so its owner's `checkTimeout` publishes
/// it stale after the timeout, as for a thread of its own; members that fall due while the
/// pass is held up count from their due time. They are sampled again when the blocked call
/// returns.
///
/// The thread starts with the first member and ends when the last one has stopped (a
/// SamplingThread stops when its owner lets go of it); the next member starts it again.
public final class SamplingGroup: @unchecked Sendable {
    /// A path the group samples: its SamplingThread's shared state and wake counter, and
    /// what its sampling keeps between samples.
    struct Member {
        let path: String
        let shared: ConditionLock<SamplingThread.State>
        let wake: EventCounter
        var sampler: SamplingThread.Sampler
    }

    struct State {
        /// The members not being sampled at the moment.
        var members: [Member] = []
        var threadRunning = false
        /// Wakeups that sampled at least one member, and the samples they took (tests
        /// count them: members due together are sampled in one pass).
        var passes: UInt64 = 0
        var samples: UInt64 = 0
    }

    let shared = ConditionLock(State())

    public init() {}

    /// Adds a member (its first sample taken), starting the thread if it is not running.
    /// If the thread cannot be started, the member gets one of its own.
    func join(_ member: Member) {
        let start = shared.update { state -> Bool in
            state.members.append(member)
            defer { state.threadRunning = true }
            return !state.threadRunning
        }
        guard start else { return }
        do {
            try WorkerThread.start { [self] in run() }
        } catch {
            shared.withLock { state in
                state.threadRunning = false
                state.members.removeAll { $0.shared === member.shared }
            }
            detach(member)
        }
    }

    /// Makes the thread look at its members again: one was stopped, or its interval changed.
    func wakeUp() {
        shared.update { _ in }
    }

    /// The number of members (tests).
    var memberCount: Int { shared.withLock { $0.members.count } }
    var isThreadRunning: Bool { shared.withLock { $0.threadRunning } }

    /// A member goes back to a thread of its own (its path now leads to a filesystem that
    /// may hang, or a sample failed and nothing is known of it); it comes back when a
    /// sample shows a local filesystem again. Should no thread start, the member is
    /// sampled no more and its owner's timeout shows it stale.
    private func detach(_ member: Member) {
        let path = member.path, shared = member.shared, wake = member.wake, sampler = member.sampler
        try? WorkerThread.start { [self] in SamplingThread.run(path: path, shared, wake, sampler: sampler, group: self) }
    }

    private func run() {
        var slack: UInt64 = 0
        while true {
            // The due members are taken out while they are sampled, each marked running
            // (their owners' timeouts count from now), with the interval they are taken for.
            let due: [(member: Member, interval: UInt64)]? = shared.wait { state in
                state.members.removeAll { member in member.shared.withLock { $0.stopped } }
                if state.members.isEmpty {
                    state.threadRunning = false
                    return .done(nil)
                }
                let now = MonotonicClock.nanoseconds()
                var earliest = UInt64.max
                var due: [(member: Member, interval: UInt64)] = []
                var waiting: [Member] = []
                for member in state.members {
                    let interval: UInt64? = member.shared.withLock { memberState in
                        guard now >= memberState.nextTick else {
                            earliest = min(earliest, memberState.nextTick)
                            return nil
                        }
                        return SamplingThread.begin(&memberState, now: now)
                    }
                    if let interval { due.append((member, interval)) } else { waiting.append(member) }
                }
                guard !due.isEmpty else { return .sleep(until: earliest) }
                state.members = waiting
                return .done(due)
            }
            guard let due else { return }
            SamplingThread.setTimerSlack(for: due.map(\.interval).min() ?? 0, current: &slack)
            var kept: [Member] = []
            for (member, interval) in due {
                var member = member
                SamplingThread.sample(path: member.path, member.shared, member.wake, with: &member.sampler, interval: interval)
                if member.sampler.isKnownLocal { kept.append(member) } else { detach(member) }
            }
            shared.withLock { state in
                state.members.append(contentsOf: kept)
                state.passes += 1
                state.samples += UInt64(due.count)
            }
        }
    }
}
