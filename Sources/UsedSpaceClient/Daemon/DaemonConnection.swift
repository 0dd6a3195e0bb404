import UsedSpaceCore
import UsedSpaceSystem

/// A connection to usedspaced's socket for one request and its answer (usedspaced(8)).
final class DaemonConnection {
    enum Failure: Error, CustomStringConvertible {
        case unreachable(String)
        case timedOut
        case closed
        case protocolError(String)
        case refused(code: String, message: String)

        var description: String {
            switch self {
            case .unreachable(let reason): return "cannot reach the daemon: \(reason)"
            case .timedOut: return "the daemon did not answer in time"
            case .closed: return "the daemon closed the connection"
            case .protocolError(let reason): return "unexpected answer from the daemon: \(reason)"
            case .refused(let code, let message): return "the daemon refused: \(code) \(message)"
            }
        }
    }

    /// `$USEDSPACE_SOCKET`, else `$XDG_RUNTIME_DIR/usedspace.sock`.
    static var socketPath: String? {
        ProcessEnvironment.value("USEDSPACE_SOCKET") ?? ProcessEnvironment.runtimeDirectory.map { $0 + "/usedspace.sock" }
    }

    private let socket: FileDescriptor
    private var decoder = ResponseFrameDecoder()

    init(path: String) throws(Failure) {
        do {
            socket = try UnixSocket.connect(to: path)
        } catch {
            throw .unreachable(error.description)
        }
    }

    /// One request, one answer, waiting at most until `deadline` (monotonic ns); an `error`
    /// answer is thrown.
    func request(_ line: String, deadline: UInt64) throws(Failure) -> [String] {
        try send(line)
        return try answer(deadline: deadline)
    }

    /// The request alone: `list` asks, measures while the daemon answers, then reads.
    func send(_ line: String) throws(Failure) {
        do {
            try socket.writeAll(Array(line.utf8))
        } catch {
            throw .unreachable(error.description)
        }
    }

    /// The answer to the request sent, waiting at most until `deadline`.
    func answer(deadline: UInt64) throws(Failure) -> [String] {
        let frame = try readFrame(deadline: deadline)
        switch frame.header {
        case .ok: return frame.lines
        case .error(let code, let message): throw .refused(code: code, message: message)
        case .update: throw .protocolError("an update before the answer")
        }
    }

    private func readFrame(deadline: UInt64) throws(Failure) -> ResponseFrameDecoder.Frame {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline, socket.wait(for: .readable, milliseconds: Int32(min((deadline - now) / 1_000_000 + 1, 60_000))) else {
                if MonotonicClock.nanoseconds() < deadline { continue }
                throw .timedOut
            }
            let result: FileDescriptor.ReadResult
            do {
                result = try socket.read(into: &chunk)
            } catch {
                throw .unreachable(error.description)
            }
            switch result {
            case .wouldBlock:
                continue
            case .endOfFile:
                throw .closed
            case .data(let count):
                do {
                    if let frame = try decoder.feed(chunk[0..<count]).first { return frame }
                } catch {
                    throw .protocolError(error.description)
                }
            }
        }
    }
}
