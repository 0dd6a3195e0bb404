import CSystemd

/// The sd_notify(3) messages the service manager reads: READY, STATUS, RELOADING, STOPPING.
/// Without NOTIFY_SOCKET (not started by systemd) every call is a no-op.
struct ServiceNotifier {
    func ready(status: String) { send("READY=1\nSTATUS=\(Self.oneLine(status))") }
    func status(_ status: String) { send("STATUS=\(Self.oneLine(status))") }
    func reloading() { send("RELOADING=1\nSTATUS=Reloading configuration") }
    func stopping() { send("STOPPING=1\nSTATUS=Stopping") }
    /// A newline in a status (a path can hold one) would start a new, bogus assignment.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    private func send(_ message: String) {
        _ = sd_notify(0, message)
    }
}
