import CSystemd
import CLinux
import UsedSpaceSystem

/// Delivers a signal as an event on the loop (sd-event uses signalfd). The signal must be
/// blocked in every thread first: `ProcessControl.blockSignals`.
final class SignalEventSource {
    private var source: OpaquePointer?
    private let handler: () -> Void

    init(loop: EventLoop, signal: Int32, handler: @escaping () -> Void) throws(SystemError) {
        self.handler = handler
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        try SystemError.systemd("sd_event_add_signal", sd_event_add_signal(loop.event, &source, signal, { _, _, userdata in
            Unmanaged<SignalEventSource>.fromOpaque(userdata!).takeUnretainedValue().handler()
            return 0
        }, userdata))
    }

    deinit { sd_event_source_disable_unref(source) }
}
