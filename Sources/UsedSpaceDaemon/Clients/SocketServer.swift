import UsedSpaceCore
import UsedSpaceSystem

/// Accepts connections on the listening socket: only from our own user, and no more than
/// the configured limit at once. Refusals get a one-line reason before the socket closes.
final class SocketServer {
    private let listener: FileDescriptor
    /// The path we bound ourselves (to unlink on exit); nil when systemd owns the socket.
    let boundPath: String?
    var maximumClients: Int
    private let logger: Logger
    private var source: IOEventSource?
    private var pauseTimer: TimerEventSource?
    private let refusalLog: RateLimitedLog
    private let accepted: (consuming FileDescriptor, Int32) -> Void
    private let connectionCount: () -> Int
    private let ownUserID = ProcessControl.userID

    init(listener: consuming FileDescriptor, boundPath: String?, maximumClients: Int, loop: EventLoop, logger: Logger,
         connectionCount: @escaping () -> Int,
         accepted: @escaping (_ socket: consuming FileDescriptor, _ peerProcessID: Int32) -> Void) throws(SystemError) {
        let descriptor = listener.rawValue
        self.listener = consume listener
        self.boundPath = boundPath
        self.maximumClients = maximumClients
        self.logger = logger
        self.accepted = accepted
        self.connectionCount = connectionCount
        self.refusalLog = RateLimitedLog(logger: logger, interval: 10_000_000)
        source = try IOEventSource(loop: loop, descriptor: descriptor, events: IOEvents.readable) { [unowned(unsafe) self] _ in
            self.acceptPending()
        }
        pauseTimer = try TimerEventSource(loop: loop, accuracyMicroseconds: 10_000) { [unowned(unsafe) self] in
            self.source?.setEnabled(true)
        }
    }

    deinit {
        source = nil
        if let boundPath { _ = unlinkFile(boundPath) }
    }

    private func acceptPending() {
        // A bounded batch per wakeup keeps one flood from starving everyone else.
        for _ in 0..<64 {
            let connection: FileDescriptor?
            do {
                connection = try UnixSocket.accept(listener)
            } catch {
                // Out of descriptors (EMFILE/ENFILE): stop accepting briefly rather than spin.
                refusalLog.log(.error, "cannot accept connections (\(error)); pausing for 100 ms", metadata: ["reason": "\(error)"])
                source?.setEnabled(false)
                pauseTimer?.schedule(afterMicroseconds: 100_000)
                return
            }
            guard let connection else { return }
            admit(connection)
        }
    }

    private func admit(_ connection: consuming FileDescriptor) {
        guard let peer = try? UnixSocket.peerCredentials(connection) else { return }
        guard peer.uid == ownUserID else {
            refuse(connection, "error forbidden this daemon serves only uid \(ownUserID)\n")
            refusalLog.log(.warning, "refused a connection from uid \(peer.uid) (pid \(peer.pid)): this daemon serves only uid \(ownUserID)",
                           metadata: ["peer_uid": "\(peer.uid)", "peer_pid": "\(peer.pid)"])
            return
        }
        guard connectionCount() < maximumClients else {
            refuse(connection, "error busy too many connections (limit \(maximumClients)); try again later\n")
            refusalLog.log(.warning, "refused a connection: at the connection limit of \(maximumClients)", metadata: ["limit": "\(maximumClients)"])
            return
        }
        accepted(connection, peer.pid)
    }

    private func refuse(_ connection: consuming FileDescriptor, _ message: String) {
        _ = try? connection.send(Array(message.utf8))
    }
}

/// Logs at most one line per interval and says how many were held back, so a flood of
/// refused clients cannot flood the journal.
final class RateLimitedLog {
    private let logger: Logger
    private let interval: UInt64
    private var lastLogged: UInt64 = 0
    private var suppressed = 0

    init(logger: Logger, interval: UInt64) {
        self.logger = logger
        self.interval = interval
    }

    func log(_ level: Logger.Level, _ message: String, metadata: Logger.Metadata) {
        let now = MonotonicClock.nanoseconds() / 1000
        guard lastLogged == 0 || now - lastLogged >= interval else {
            suppressed += 1
            return
        }
        var metadata = metadata
        var message = message
        if suppressed > 0 {
            metadata["suppressed_since_last"] = "\(suppressed)"
            message = "\(message) (\(suppressed) more since the last such message)"
        }
        logger.log(level: level, message, metadata: metadata)
        lastLogged = now
        suppressed = 0
    }
}
