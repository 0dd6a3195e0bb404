import CSystemd
import CLinux
import UsedSpaceSystem

/// Calls `handler` with the epoll events whenever a descriptor is ready. The source does not
/// own the descriptor; release the source before closing it.
final class IOEventSource {
    private var source: OpaquePointer?
    private let handler: (UInt32) -> Void

    init(loop: EventLoop, descriptor: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) throws(SystemError) {
        self.handler = handler
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        try SystemError.systemd("sd_event_add_io", sd_event_add_io(loop.event, &source, descriptor, events, { _, _, events, userdata in
            Unmanaged<IOEventSource>.fromOpaque(userdata!).takeUnretainedValue().handler(events)
            return 0
        }, userdata))
    }

    /// EPOLLIN, EPOLLOUT… to wait for from now on.
    func setEvents(_ events: UInt32) {
        sd_event_source_set_io_events(source, events)
    }

    func setEnabled(_ enabled: Bool) {
        sd_event_source_set_enabled(source, enabled ? Int32(SD_EVENT_ON) : Int32(SD_EVENT_OFF))
    }

    deinit { sd_event_source_disable_unref(source) }
}

/// The epoll(7) event bits IOEventSource takes and reports.
enum IOEvents {
    static let readable = UInt32(EPOLLIN.rawValue)
    static let writable = UInt32(EPOLLOUT.rawValue)
    /// Urgent data; on a mountinfo file, a change of the mount table.
    static let priority = UInt32(EPOLLPRI.rawValue)
    static let error = UInt32(EPOLLERR.rawValue)
    static let hangUp = UInt32(EPOLLHUP.rawValue)
}
