import CSystemd
import CLinux
import UsedSpaceSystem

/// A one-shot CLOCK_MONOTONIC timer that can be re-armed. `accuracy` lets the kernel and
/// sd-event coalesce our wakeups with others', which is how an idle daemon stays idle.
final class TimerEventSource {
    private var source: OpaquePointer?
    private let handler: () -> Void

    init(loop: EventLoop, accuracyMicroseconds: UInt64, handler: @escaping () -> Void) throws(SystemError) {
        self.handler = handler
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        try SystemError.systemd("sd_event_add_time", sd_event_add_time(
            loop.event, &source, CLOCK_MONOTONIC, UInt64.max, accuracyMicroseconds, { _, _, userdata in
                Unmanaged<TimerEventSource>.fromOpaque(userdata!).takeUnretainedValue().handler()
                return 0
            }, userdata))
        sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
    }

    /// Fires once, `microseconds` from now (replacing any earlier schedule).
    func schedule(afterMicroseconds microseconds: UInt64) {
        sd_event_source_set_time_relative(source, microseconds)
        sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
    }

    /// Off until the next `schedule`.
    func cancel() {
        sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
    }

    var isScheduled: Bool {
        var enabled: Int32 = 0
        return sd_event_source_get_enabled(source, &enabled) >= 0 && enabled != Int32(SD_EVENT_OFF)
    }

    deinit { sd_event_source_disable_unref(source) }
}
