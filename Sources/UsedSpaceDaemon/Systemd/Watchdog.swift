import CSystemd
import UsedSpaceSystem

/// WATCHDOG=1 to the service manager, when it asked for it (WatchdogSec=, as
/// $WATCHDOG_USEC): from a timer on the loop, so a loop that hangs stops the pings. Sent
/// between a quarter and half of the interval after the last, the timer's slack letting the
/// kernel fold it into a wakeup the loop has anyway; through the ServiceNotifier's socket,
/// where sd-event's own watchdog made a socket per ping with sd_notify.
final class Watchdog {
    private var timer: TimerEventSource?
    private let notifier: ServiceNotifier
    private let quarterMicroseconds: UInt64

    /// nil when the service manager asked for no watchdog (or not of this process).
    init?(loop: EventLoop, notifier: ServiceNotifier) throws(SystemError) {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds >= 4 else { return nil }
        self.notifier = notifier
        quarterMicroseconds = microseconds / 4
        timer = try TimerEventSource(loop: loop, accuracyMicroseconds: quarterMicroseconds) { [unowned(unsafe) self] in self.ping() }
        ping()
    }

    private func ping() {
        notifier.watchdog()
        timer?.schedule(afterMicroseconds: quarterMicroseconds)
    }
}
