import CBusVtable
import CSystemd
import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// Desktop notifications through the session bus (org.freedesktop.Notifications, on the
/// daemon's connection, SessionBus). Without a session bus or a notification server, the
/// problem is logged once and the daemon carries on.
final class DesktopNotifier: NotificationPresenter, SessionBusUser {
    static let service = "org.freedesktop.Notifications"
    static let objectPath = "/org/freedesktop/Notifications"

    private let sessionBus: SessionBus
    private let logger: Logger
    private var bus: OpaquePointer?
    private var actionSlot: OpaquePointer?
    private var closedSlot: OpaquePointer?
    /// The server's id of the notification shown for each key.
    private var shown: [String: UInt32] = [:]
    private var failing = false
    /// Called with the key whose notification's "Ignore" was chosen.
    var onIgnore: (String) -> Void = { _ in }

    init(sessionBus: SessionBus, logger: Logger) {
        self.sessionBus = sessionBus
        self.logger = logger
    }

    deinit { busClosed() }

    /// Shows a notification for `key`, replacing the one already shown for it. The server is
    /// asked first whether it reads the body as markup ("body-markup"): then the body is
    /// escaped, so that a path's "&" or "<" shows as it is. Asked each time, since another
    /// server may have taken the name since; notifications are rare.
    func show(key: String, kind: String, path: String, summary: String, body: String) {
        guard let bus = openBus() else { return }
        let notification = Notification(key: key, kind: kind, path: path, summary: summary, body: body)
        var message: OpaquePointer?
        let result = sd_bus_message_new_method_call(bus, &message, Self.service, Self.objectPath, Self.service, "GetCapabilities")
        guard result >= 0, let message else {
            report("cannot ask the notification server what it supports", SystemError(call: "sd_bus_message_new_method_call", errno: -result))
            return
        }
        defer { sd_bus_message_unref(message) }
        call(bus, message, CallContext(notifier: self, notification: notification, step: .capabilities))
    }

    private func notify(_ notification: Notification, markup: Bool) {
        guard let bus = openBus() else { return }
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, Self.service, Self.objectPath, Self.service, "Notify")
        if result >= 0, let message {
            result = Self.appendNotify(message, replaces: shown[notification.key] ?? 0, summary: notification.summary,
                                       body: markup ? MarkupText.escaped(notification.body) : notification.body)
        }
        guard result >= 0, let message else {
            sd_bus_message_unref(message)
            report("cannot build a notification", SystemError(call: "sd_bus_message_append", errno: -result))
            return
        }
        defer { sd_bus_message_unref(message) }
        call(bus, message, CallContext(notifier: self, notification: notification, step: .notify))
    }

    private func call(_ bus: OpaquePointer, _ message: OpaquePointer, _ context: CallContext) {
        let userdata = Unmanaged.passRetained(context).toOpaque()
        let result = sd_bus_call_async(bus, nil, message, { reply, userdata, _ in
            let context = Unmanaged<CallContext>.fromOpaque(userdata!).takeRetainedValue()
            context.notifier.received(reply, for: context)
            return 0
        }, userdata, 25_000_000)
        if result < 0 {
            Unmanaged<CallContext>.fromOpaque(userdata).release()
            report("cannot send a notification", SystemError(call: "sd_bus_call_async", errno: -result))
        }
    }

    /// Takes down the notification shown for `key`, if any.
    func withdraw(key: String) {
        guard let id = shown.removeValue(forKey: key), let bus = openBus() else { return }
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, Self.service, Self.objectPath, Self.service, "CloseNotification") >= 0,
              let message else { return }
        defer { sd_bus_message_unref(message) }
        var value = id
        guard sd_bus_message_append_basic(message, Self.type("u"), &value) >= 0 else { return }
        _ = sd_bus_call_async(bus, nil, message, nil, nil, 0)
    }

    // MARK: - The bus (SessionBusUser)

    private func openBus() -> OpaquePointer? {
        guard let bus else {
            reportMessage("desktop notifications are unavailable", reason: "no session bus")
            return nil
        }
        return bus
    }

    func busOpened(_ bus: OpaquePointer) {
        self.bus = bus
        let result = matchSignals(bus)
        if result < 0 { report("cannot follow the notification server's signals", SystemError(call: "sd_bus_match_signal", errno: -result)) }
    }

    private func matchSignals(_ bus: OpaquePointer) -> Int32 {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        var result = sd_bus_match_signal(bus, &actionSlot, nil, Self.objectPath, Self.service, "ActionInvoked", { message, userdata, _ in
            Unmanaged<DesktopNotifier>.fromOpaque(userdata!).takeUnretainedValue().actionInvoked(message)
            return 0
        }, userdata)
        guard result >= 0 else { return result }
        result = sd_bus_match_signal(bus, &closedSlot, nil, Self.objectPath, Self.service, "NotificationClosed", { message, userdata, _ in
            Unmanaged<DesktopNotifier>.fromOpaque(userdata!).takeUnretainedValue().notificationClosed(message)
            return 0
        }, userdata)
        return result
    }

    /// The notifications shown on the old connection are left to the server: their ids
    /// may mean nothing to a restarted one.
    func busClosed() {
        actionSlot = sd_bus_slot_unref(actionSlot)
        closedSlot = sd_bus_slot_unref(closedSlot)
        bus = nil
        shown = [:]
    }

    // MARK: - Replies and signals

    private struct Notification {
        let key: String
        let kind: String
        let path: String
        let summary: String
        let body: String
    }

    private final class CallContext {
        enum Step { case capabilities, notify }
        unowned(unsafe) let notifier: DesktopNotifier
        let notification: Notification
        let step: Step
        init(notifier: DesktopNotifier, notification: Notification, step: Step) {
            self.notifier = notifier
            self.notification = notification
            self.step = step
        }
    }

    private func received(_ reply: OpaquePointer?, for context: CallContext) {
        guard let reply else { return }
        let failed = sd_bus_message_is_method_error(reply, nil) > 0
        switch context.step {
        case .capabilities:
            // A server that cannot say is sent plain text; Notify's own reply says whether
            // there is a server at all.
            notify(context.notification, markup: !failed && Self.capabilities(in: reply).contains("body-markup"))
        case .notify where failed:
            let error = sd_bus_message_get_error(reply)
            let name = error.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? "unknown error"
            let text = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? ""
            reportMessage("the notification server refused a notification", reason: "\(name): \(text)")
        case .notify:
            var id: UInt32 = 0
            guard sd_bus_message_read_basic(reply, Self.type("u"), &id) > 0 else { return }
            let notification = context.notification
            shown[notification.key] = id
            sessionBus.confirmed()
            if failing {
                failing = false
                logger.notice("desktop notifications work again")
            }
            logger.info("showed a \(notification.kind) notification",
                        metadata: ["path": "\(notification.path)", "kind": "\(notification.kind)", "notification_id": "\(id)"])
        }
    }

    /// GetCapabilities' answer (as), or none when it is not that shape.
    private static func capabilities(in reply: OpaquePointer) -> [String] {
        guard sd_bus_message_enter_container(reply, type("a"), "s") > 0 else { return [] }
        var capabilities: [String] = []
        var capability: UnsafePointer<CChar>?
        while sd_bus_message_read_basic(reply, type("s"), &capability) > 0, let capability {
            capabilities.append(String(cString: capability))
        }
        return capabilities
    }

    private func actionInvoked(_ message: OpaquePointer?) {
        var id: UInt32 = 0
        var key: UnsafePointer<CChar>?
        guard let message, sd_bus_message_read_basic(message, Self.type("u"), &id) > 0,
              sd_bus_message_read_basic(message, Self.type("s"), &key) > 0, let key,
              let shownKey = shown.first(where: { $0.value == id })?.key
        else { return }
        if String(cString: key) == "ignore" { onIgnore(shownKey) }
    }

    private func notificationClosed(_ message: OpaquePointer?) {
        var id: UInt32 = 0
        guard let message, sd_bus_message_read_basic(message, Self.type("u"), &id) > 0 else { return }
        if let key = shown.first(where: { $0.value == id })?.key { shown[key] = nil }
    }

    // MARK: - Helpers

    /// Notify(s app_name, u replaces_id, s app_icon, s summary, s body, as actions,
    /// a{sv} hints, i expire_timeout): never expiring, with an "Ignore" action.
    private static func appendNotify(_ message: OpaquePointer, replaces: UInt32, summary: String, body: String) -> Int32 {
        var replacesID = replaces
        var urgency: UInt8 = 1
        var timeout: Int32 = 0
        let steps: [() -> Int32] = [
            { sd_bus_message_append_basic(message, type("s"), "usedspace") },
            { sd_bus_message_append_basic(message, type("u"), &replacesID) },
            { sd_bus_message_append_basic(message, type("s"), "drive-harddisk") },
            { summary.withCString { sd_bus_message_append_basic(message, type("s"), $0) } },
            { body.withCString { sd_bus_message_append_basic(message, type("s"), $0) } },
            { sd_bus_message_open_container(message, type("a"), "s") },
            { sd_bus_message_append_basic(message, type("s"), "ignore") },
            { sd_bus_message_append_basic(message, type("s"), "Ignore") },
            { sd_bus_message_close_container(message) },
            { sd_bus_message_open_container(message, type("a"), "{sv}") },
            { sd_bus_message_open_container(message, type("e"), "sv") },
            { sd_bus_message_append_basic(message, type("s"), "urgency") },
            { sd_bus_message_open_container(message, type("v"), "y") },
            { sd_bus_message_append_basic(message, type("y"), &urgency) },
            { sd_bus_message_close_container(message) },
            { sd_bus_message_close_container(message) },
            { sd_bus_message_close_container(message) },
            { sd_bus_message_append_basic(message, type("i"), &timeout) },
        ]
        for step in steps {
            let result = step()
            if result < 0 { return result }
        }
        return 0
    }

    private static func type(_ character: Unicode.Scalar) -> CChar { CChar(UInt8(character.value)) }

    private func report(_ what: String, _ error: SystemError) {
        reportMessage(what, reason: error.description)
    }

    private func reportMessage(_ what: String, reason: String) {
        guard !failing else { return }
        failing = true
        logger.warning("\(what); not logging this again until a notification is shown", metadata: ["reason": "\(reason)"])
    }
}
