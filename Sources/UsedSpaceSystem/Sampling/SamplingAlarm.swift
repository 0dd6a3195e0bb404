import CLinux

/// A dead man's switch for sampling calls: armed when a call that may hang starts, for the
/// moment it would overrun its timeout, and disarmed when it returns. It becomes readable
/// only when a call overran, so the owner's event loop sleeps through every sample that
/// answers in time (polling for overruns cost a wakeup of the loop every few seconds per
/// watched path). A timerfd(2): arming and disarming are one system call each.
public final class SamplingAlarm: @unchecked Sendable {
    private let timer: FileDescriptor

    public init() throws(SystemError) {
        timer = FileDescriptor(owning: try SystemCall.retrying("timerfd_create") { clinux_timerfd_create() })
    }

    /// For poll(2) and event loops; owned by this alarm.
    public var descriptor: Int32 { timer.rawValue }

    /// Goes off at `deadline` (CLOCK_MONOTONIC ns) unless disarmed before. Any thread.
    public func arm(at deadline: UInt64) {
        _ = clinux_timerfd_set(timer.rawValue, max(deadline, 1))
    }

    public func disarm() {
        _ = clinux_timerfd_set(timer.rawValue, 0)
    }

    /// Takes the expiry, if any: whether it had gone off.
    @discardableResult
    public func acknowledge() -> Bool {
        var expirations: UInt64 = 0
        return (try? SystemCall.nonBlocking("read") { CLinux.read(timer.rawValue, &expirations, 8) }) == 8
    }
}
