import CSystemd
import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// What uses the session bus: it adds its objects and matches to each connection, and lets
/// go of them when the connection ends.
protocol SessionBusUser: AnyObject {
    func busOpened(_ bus: OpaquePointer)
    /// The connection has ended (or the daemon stops): drop every slot on it.
    func busClosed()
}

/// The daemon's one connection to the user's session bus, shared by what it offers there
/// (the D-Bus interface) and what it asks of it (desktop notifications). Without a bus, or
/// when the bus goes away (dbus restarted), it tries again later, backing off to once every
/// five minutes, and its users start over on the new connection. Nothing here blocks the
/// loop: sd-bus connects, authenticates and sends asynchronously.
final class SessionBus {
    private let loop: EventLoop
    private let logger: Logger
    private(set) var connection: OpaquePointer?
    private var disconnectedSlot: OpaquePointer?
    private var users: [SessionBusUser] = []
    private var retry: TimerEventSource?
    private var retryMicroseconds = SessionBus.firstRetryMicroseconds
    /// A failure was logged: the next success is logged too, and no failure until then.
    private var failing = false

    static let firstRetryMicroseconds: UInt64 = 1_000_000
    static let longestRetryMicroseconds: UInt64 = 300_000_000

    init(loop: EventLoop, logger: Logger) throws(SystemError) {
        self.loop = loop
        self.logger = logger
        retry = try TimerEventSource(loop: loop, accuracyMicroseconds: 500_000) { [unowned(unsafe) self] in self.open() }
    }

    deinit { close() }

    /// Users are told of the connection open now, and of every later one.
    func add(_ user: SessionBusUser) {
        users.append(user)
        if let connection { user.busOpened(connection) }
    }

    /// Connects, now and after every loss of the connection.
    func open() {
        close()
        var opened: OpaquePointer?
        var result = sd_bus_open_user(&opened)
        if result >= 0, let opened {
            result = sd_bus_attach_event(opened, loop.event, 0)
            if result >= 0 { result = matchDisconnected(opened) }
        }
        guard result >= 0, let opened else {
            sd_bus_flush_close_unref(opened)
            lost(SystemError(call: "sd_bus_open_user", errno: -result).description)
            return
        }
        connection = opened
        for user in users { user.busOpened(opened) }
    }

    /// A user's call on the bus succeeded: the connection works (and is logged as working
    /// when it had not).
    func confirmed() {
        retryMicroseconds = Self.firstRetryMicroseconds
        guard failing else { return }
        failing = false
        logger.notice("connected to the session bus")
    }

    /// Lets go of the connection (the users first: their slots hold it).
    func close() {
        guard let connection else { return }
        for user in users { user.busClosed() }
        disconnectedSlot = sd_bus_slot_unref(disconnectedSlot)
        sd_bus_flush_close_unref(connection)
        self.connection = nil
    }

    private func matchDisconnected(_ bus: OpaquePointer) -> Int32 {
        // A local match (sd-bus's own message when the connection ends): not sent to the bus.
        sd_bus_match_signal(bus, &disconnectedSlot, "org.freedesktop.DBus.Local", "/org/freedesktop/DBus/Local",
                            "org.freedesktop.DBus.Local", "Disconnected", { _, userdata, _ in
            Unmanaged<SessionBus>.fromOpaque(userdata!).takeUnretainedValue().disconnected()
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    private func disconnected() {
        // Closed (the users' slots with it) by the retry, not here: sd-bus is still
        // dispatching on this connection. Until then, calls on it fail and are dropped.
        lost("the connection was closed")
    }

    private func lost(_ reason: String) {
        let delay = retryMicroseconds
        retryMicroseconds = min(retryMicroseconds * 2, Self.longestRetryMicroseconds)
        retry?.schedule(afterMicroseconds: delay)
        guard !failing else { return }
        failing = true
        logger.notice("no session bus: \(reason); the D-Bus interface and desktop notifications wait for it (trying again, at most every \(DurationParser.describe(microseconds: Self.longestRetryMicroseconds)))",
                      metadata: ["reason": "\(reason)"])
    }
}
