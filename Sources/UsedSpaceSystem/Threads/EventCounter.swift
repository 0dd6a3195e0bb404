import CLinux

/// An eventfd(2): how threads wake an event loop (or a thread sleeping in poll) without
/// sharing anything else.
public final class EventCounter: @unchecked Sendable {
    private let counter: FileDescriptor

    public init() throws(SystemError) {
        counter = FileDescriptor(owning: try SystemCall.retrying("eventfd") { clinux_eventfd(0, O_CLOEXEC | O_NONBLOCK) })
    }

    /// For poll(2) and event loops; owned by this counter.
    public var descriptor: Int32 { counter.rawValue }

    /// Callable from any thread.
    public func signal() {
        var one: UInt64 = 1
        _ = try? SystemCall.nonBlocking("write") { CLinux.write(counter.rawValue, &one, 8) }
    }

    /// Resets the counter; returns whether it had been signalled.
    @discardableResult
    public func drain() -> Bool {
        var value: UInt64 = 0
        return (try? SystemCall.nonBlocking("read") { CLinux.read(counter.rawValue, &value, 8) }) == 8
    }
}
