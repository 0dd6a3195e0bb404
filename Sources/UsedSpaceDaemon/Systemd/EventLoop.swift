import CSystemd
import CLinux
import UsedSpaceSystem

/// An sd-event loop: the one thread on which the daemon does everything but statvfs.
///
/// Each event source is owned by the object its callback calls, which unrefs it in deinit:
/// no callback runs after its owner is gone, so callbacks capture their owner
/// `unowned(unsafe)` (Embedded Swift has neither `weak` nor checked `unowned`). A call in
/// progress holds its owner (the capture is copied into a strong reference for the call), so
/// an owner may let go of itself from its own callback.
final class EventLoop {
    let event: OpaquePointer

    init() throws(SystemError) {
        var event: OpaquePointer?
        try SystemError.systemd("sd_event_new", sd_event_new(&event))
        self.event = event!
    }

    deinit { sd_event_unref(event) }

    /// Runs until `exit` is called; returns the exit code.
    func run() throws(SystemError) -> Int32 {
        try SystemError.systemd("sd_event_loop", sd_event_loop(event))
    }

    /// Runs one iteration: waits at most `timeoutMicroseconds` for an event and dispatches
    /// it. Returns whether one was dispatched (for tests that drive a loop step by step).
    @discardableResult
    func runOnce(timeoutMicroseconds: UInt64) throws(SystemError) -> Bool {
        try SystemError.systemd("sd_event_run", sd_event_run(event, timeoutMicroseconds)) > 0
    }

    func exit(_ code: Int32) {
        sd_event_exit(event, code)
    }

    /// CLOCK_MONOTONIC in microseconds, as of this loop iteration.
    var now: UInt64 {
        var microseconds: UInt64 = 0
        if sd_event_now(event, CLOCK_MONOTONIC, &microseconds) < 0 {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            microseconds = UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1000
        }
        return microseconds
    }
}
