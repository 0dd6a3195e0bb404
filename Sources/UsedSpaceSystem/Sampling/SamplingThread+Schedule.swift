import CLinux
import UsedSpaceCore

/// When a path is sampled: on a grid of multiples of the interval, every other interval for
/// a quiet relaxed path, with timer slack; and a thread of its own's loop.
extension SamplingThread {
    /// Ends the running sample and schedules the next.
    static func finish(_ state: inout State, now: UInt64, quiet: Bool) {
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
            if let group, sampled.cache.isKnownLocal {
                sampled.alarm.disarm()
                sampled.cache.probe = nil
                group.join(sampled)
                return
            }
            if sampled.cache.resolution != nil { sampled.cache.fitProbe(path: sampled.path, knownLocal: sampled.cache.isKnownLocal) }
        }
    }
}
