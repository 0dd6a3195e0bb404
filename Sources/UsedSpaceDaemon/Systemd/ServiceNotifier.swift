import CSystemd
import UsedSpaceSystem

/// The sd_notify(3) messages the service manager reads: READY, STATUS, RELOADING, STOPPING,
/// WATCHDOG.
/// Without NOTIFY_SOCKET (not started by systemd) every call is a no-op. A status that says
/// what the last one said is not sent again: each message wakes the service manager.
///
/// The messages go out on one socket connected at the first: sd_notify makes a socket per
/// message and raises its buffer with a call that fails unprivileged (SO_SNDBUFFORCE), six
/// system calls and a failed one for each status line of a disk in use. An address this
/// cannot connect to (a vsock one) goes through sd_notify.
final class ServiceNotifier {
    private var lastStatus: String?
    /// $NOTIFY_SOCKET, read once: the service manager sets it at start.
    private let address = ProcessEnvironment.value("NOTIFY_SOCKET")
    private var connection: Connection?
    private var connected = false

    private final class Connection {
        let socket: FileDescriptor
        init?(_ address: String?) {
            guard let address, let socket = try? UnixDatagram.connect(to: address) else { return nil }
            self.socket = socket
        }
        func send(_ bytes: [UInt8]) -> Bool { (try? UnixDatagram.send(bytes, on: socket)) != nil }
    }

    func ready(status: String) {
        lastStatus = Self.oneLine(status)
        send("READY=1\nSTATUS=\(lastStatus!)")
    }

    func status(_ status: String) {
        let line = Self.oneLine(status)
        guard line != lastStatus else { return }
        lastStatus = line
        send("STATUS=\(line)")
    }

    func reloading() {
        lastStatus = nil
        send("RELOADING=1\nSTATUS=Reloading configuration")
    }

    func stopping() {
        lastStatus = nil
        send("STOPPING=1\nSTATUS=Stopping")
    }

    func watchdog() {
        send("WATCHDOG=1")
    }

    /// A newline in a status (a path can hold one) would start a new, bogus assignment.
    static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) else { return text }
        return String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    private func send(_ message: String) {
        guard address != nil else { return }
        if !connected {
            connected = true
            connection = Connection(address)
        }
        let bytes = Array(message.utf8)
        if connection?.send(bytes) == true { return }
        // Again on a new socket when the manager's went away (it re-executed), else through
        // sd_notify, which knows every kind of address.
        connection = Connection(address)
        if connection?.send(bytes) == true { return }
        _ = sd_notify(0, message)
    }
}
