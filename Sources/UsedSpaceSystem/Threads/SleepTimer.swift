import CLinux

/// What a thread that sleeps until a deadline blocks on: a timerfd(2). A deadline that
/// passes is a read that succeeds, where `pthread_cond_timedwait` ends in a futex call that
/// fails (ETIMEDOUT) and often a second one: the sampling threads sleep once a sample, so
/// an idle daemon made a failed system call a second. One thread sleeps on it at a time.
public final class SleepTimer: @unchecked Sendable {
    private let timer: FileDescriptor

    public init() throws(SystemError) {
        timer = FileDescriptor(owning: try SystemCall.retrying("timerfd_create") { clinux_timerfd_create_blocking() })
    }

    /// Ends the next `sleep` at `deadline` (CLOCK_MONOTONIC ns), or only by `wake` when nil.
    /// Arming anew drops an expiry not yet taken.
    func arm(at deadline: UInt64?) {
        _ = clinux_timerfd_set(timer.rawValue, deadline.map { max($0, 1) } ?? 0)
    }

    /// Ends the sleep now, or the next one at once when no thread sleeps yet. Any thread.
    func wake() {
        _ = clinux_timerfd_set(timer.rawValue, 1)
    }

    /// Blocks until the timer expires (or an interrupting signal arrives: the caller looks
    /// at its state again either way).
    func sleep() {
        var expirations: UInt64 = 0
        _ = CLinux.read(timer.rawValue, &expirations, 8)
    }
}
