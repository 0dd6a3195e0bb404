import CLinux
import Glibc

/// An eventfd(2): how worker threads wake the event loop without sharing anything else.
public final class EventCounter: @unchecked Sendable {
    public let descriptor: Int32

    public init() throws(SystemError) {
        descriptor = clinux_eventfd(0, O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw .current("eventfd") }
    }

    /// Callable from any thread.
    public func signal() {
        var one: UInt64 = 1
        while Glibc.write(descriptor, &one, 8) < 0 && errno == EINTR {}
    }

    /// Resets the counter; returns whether it had been signalled.
    @discardableResult
    public func drain() -> Bool {
        var value: UInt64 = 0
        return Glibc.read(descriptor, &value, 8) == 8
    }

    deinit { Glibc.close(descriptor) }
}
