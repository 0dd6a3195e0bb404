import CLinux
import UsedSpaceSystem

/// The listening socket: the one systemd passes (socket activation), or one bound at the
/// configured path, after making sure nobody alive is using that path.
enum SocketSetup {
    /// How long an existing socket's owner has to answer `ping` before it is taken for dead.
    /// Long enough for systemd to start a socket-activated instance that is not running yet.
    static let existingSocketWaitMilliseconds: Int32 = 3000

    struct Listening: ~Copyable {
        var socket: FileDescriptor
        /// nil when systemd owns the socket (and its file).
        var boundPath: String?
    }

    static func open(at path: String, logger: Logger) throws(DaemonFailure) -> Listening {
        if let passed = try ListenedSockets.take() {
            return Listening(socket: passed, boundPath: nil)
        }
        if let status = try? FileStatus.of(path) {
            guard status.isSocket else {
                throw DaemonFailure("\(path) exists and is not a socket; remove it or pass --socket PATH")
            }
            switch ExistingSocket.probe(path, milliseconds: existingSocketWaitMilliseconds) {
            case .usedspaced:
                throw DaemonFailure("another usedspaced is already answering on \(path); stop it first (systemctl --user stop usedspace)")
            case .otherProgram:
                throw DaemonFailure("another program is answering on \(path); stop it or pass --socket PATH")
            case .silent:
                unlinkFile(path)
                logger.warning("replaced the socket \(path): its owner accepts connections but does not answer (stopped, or stuck in a filesystem that hangs)",
                               metadata: ["socket": "\(path)"])
            case .stale:
                unlinkFile(path)
                logger.info("removed a stale socket left by an earlier run: \(path)", metadata: ["socket": "\(path)"])
            }
        }
        do {
            return Listening(socket: try UnixSocket.listen(at: path, mode: 0o600), boundPath: path)
        } catch {
            throw DaemonFailure("cannot listen on \(path): \(error)")
        }
    }
}

/// What listens on a socket file the daemon is about to bind, judged by asking it.
///
/// Connecting is not enough: a Unix socket accepts connections into its backlog without
/// its owner's help, so a stopped daemon, or one whose last thread is stuck in a filesystem
/// that hangs while the rest of it has exited (the kernel keeps the listening socket open
/// until that thread returns), would look alive for as long as that lasts.
enum ExistingSocket: Equatable {
    /// Nobody listens: connecting is refused (or the backlog is full).
    case stale
    /// Something accepted the connection but did not answer `ping` within the wait.
    case silent
    /// A usedspaced answered.
    case usedspaced
    /// Something else answered, or closed the connection without a word.
    case otherProgram

    static func probe(_ path: String, milliseconds: Int32) -> ExistingSocket {
        guard let connection = try? UnixSocket.connect(to: path) else { return .stale }
        // A program that greets and hangs up may be gone before the ping is sent (EPIPE):
        // what it said is still there to read, so the send's result decides nothing.
        _ = try? connection.send(Array("ping\n".utf8))
        let deadline = MonotonicClock.nanoseconds() + UInt64(milliseconds) * 1_000_000
        var received: [UInt8] = []
        while received.count < 64 {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { break }
            guard connection.wait(for: .readable, milliseconds: Int32((deadline - now) / 1_000_000) + 1) else { break }
            var chunk = [UInt8](repeating: 0, count: 64)
            switch try? connection.read(into: &chunk) {
            case .data(let count)?: received += chunk[0..<count]
            case .wouldBlock?: continue
            case .endOfFile?, nil: return received.isEmpty ? .otherProgram : classify(received)
            }
            if received.contains(UInt8(ascii: "\n")) { break }
        }
        return received.isEmpty ? .silent : classify(received)
    }

    /// usedspaced answers `ping` with `ok 1` (then `pong`), or with an `error` line when it
    /// cannot take the connection (too many clients).
    private static func classify(_ answer: [UInt8]) -> ExistingSocket {
        let text = String(decoding: answer, as: UTF8.self)
        return text.hasPrefix("ok 1\n") || text.hasPrefix("error ") ? .usedspaced : .otherProgram
    }
}
