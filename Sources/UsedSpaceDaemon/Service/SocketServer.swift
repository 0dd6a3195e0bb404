import Logging
import UsedSpaceCore
import UsedSpaceSystem

/// Accepts connections on the listening socket: only from our own user, and no more than
/// the configured limit at once. Refusals get a one-line reason before the socket closes.
final class SocketServer {
    let listener: Int32
    /// The path we bound ourselves (to unlink on exit); nil when systemd owns the socket.
    let boundPath: String?
    var maximumClients: Int
    private let loop: EventLoop
    private let logger: Logger
    private var source: IOEventSource?
    private var pauseTimer: TimerEventSource?
    private let refusalLog: RateLimitedLog
    private let accepted: (Int32, Int32) -> Void
    private let connectionCount: () -> Int
    private let ownUserID = ProcessControl.userID

    init(listener: Int32, boundPath: String?, maximumClients: Int, loop: EventLoop, logger: Logger,
         connectionCount: @escaping () -> Int, accepted: @escaping (_ descriptor: Int32, _ peerProcessID: Int32) -> Void) throws(SystemdError) {
        self.listener = listener
        self.boundPath = boundPath
        self.maximumClients = maximumClients
        self.loop = loop
        self.logger = logger
        self.accepted = accepted
        self.connectionCount = connectionCount
        self.refusalLog = RateLimitedLog(logger: logger, interval: 10_000_000)
        source = try IOEventSource(loop: loop, descriptor: listener, events: IOEvents.readable) { [unowned self] _ in
            self.acceptPending()
        }
        pauseTimer = try TimerEventSource(loop: loop, accuracyMicroseconds: 10_000) { [unowned self] in
            self.source?.setEnabled(true)
        }
    }

    deinit {
        source = nil
        Descriptor.close(listener)
        if let boundPath { _ = unlinkFile(boundPath) }
    }

    private func acceptPending() {
        // A bounded batch per wakeup keeps one flood from starving everyone else.
        for _ in 0..<64 {
            let descriptor: Int32?
            do {
                descriptor = try UnixSocket.accept(listener)
            } catch {
                // Out of descriptors (EMFILE/ENFILE): stop accepting briefly rather than spin.
                refusalLog.log(.error, "cannot accept connections; pausing for 100 ms", metadata: ["reason": "\(error)"])
                source?.setEnabled(false)
                pauseTimer?.schedule(afterMicroseconds: 100_000)
                return
            }
            guard let descriptor else { return }
            admit(descriptor)
        }
    }

    private func admit(_ descriptor: Int32) {
        guard let peer = try? UnixSocket.peerCredentials(descriptor) else {
            Descriptor.close(descriptor)
            return
        }
        guard peer.uid == ownUserID else {
            refuse(descriptor, "error forbidden this daemon serves only uid \(ownUserID)\n")
            refusalLog.log(.warning, "refused a connection from another user",
                           metadata: ["peer_uid": "\(peer.uid)", "peer_pid": "\(peer.pid)"])
            return
        }
        guard connectionCount() < maximumClients else {
            refuse(descriptor, "error busy too many connections (limit \(maximumClients)); try again later\n")
            refusalLog.log(.warning, "refused a connection: at the connection limit", metadata: ["limit": "\(maximumClients)"])
            return
        }
        accepted(descriptor, peer.pid)
    }

    private func refuse(_ descriptor: Int32, _ message: String) {
        _ = try? Descriptor.send(descriptor, Array(message.utf8), from: 0)
        Descriptor.close(descriptor)
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

    func log(_ level: Logger.Level, _ message: Logger.Message, metadata: Logger.Metadata) {
        let now = WallClock.monotonicNanoseconds() / 1000
        guard lastLogged == 0 || now - lastLogged >= interval else {
            suppressed += 1
            return
        }
        var metadata = metadata
        if suppressed > 0 { metadata["suppressed_since_last"] = "\(suppressed)" }
        logger.log(level: level, message, metadata: metadata)
        lastLogged = now
        suppressed = 0
    }
}
