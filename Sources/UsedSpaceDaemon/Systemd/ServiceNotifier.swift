import CSystemd

/// The sd_notify(3) messages the service manager reads: READY, STATUS, RELOADING, STOPPING.
/// Without NOTIFY_SOCKET (not started by systemd) every call is a no-op. A status that says
/// what the last one said is not sent again: each message wakes the service manager.
struct ServiceNotifier {
    private var lastStatus: String?

    mutating func ready(status: String) {
        lastStatus = Self.oneLine(status)
        send("READY=1\nSTATUS=\(lastStatus!)")
    }

    mutating func status(_ status: String) {
        let line = Self.oneLine(status)
        guard line != lastStatus else { return }
        lastStatus = line
        send("STATUS=\(line)")
    }

    mutating func reloading() {
        lastStatus = nil
        send("RELOADING=1\nSTATUS=Reloading configuration")
    }

    mutating func stopping() {
        lastStatus = nil
        send("STOPPING=1\nSTATUS=Stopping")
    }
    /// A newline in a status (a path can hold one) would start a new, bogus assignment.
    static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) else { return text }
        return String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    private func send(_ message: String) {
        _ = sd_notify(0, message)
    }
}
