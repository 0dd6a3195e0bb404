import UsedSpaceCore
import UsedSpaceSystem

/// A connection to usedspaced's socket, speaking the line protocol (usedspaced(8)).
final class DaemonConnection {
    enum Failure: Error, CustomStringConvertible {
        case noSocket
        case unreachable(String)
        case timedOut
        case closed
        case protocolError(String)
        case refused(code: String, message: String)

        var description: String {
            switch self {
            case .noSocket: return "no socket path (set XDG_RUNTIME_DIR or USEDSPACE_SOCKET)"
            case .unreachable(let reason): return "cannot reach the daemon: \(reason)"
            case .timedOut: return "the daemon did not answer in time"
            case .closed: return "the daemon closed the connection"
            case .protocolError(let line): return "unexpected answer from the daemon: \(ControlCharacters.replaced(in: line))"
            case .refused(let code, let message): return "the daemon refused: \(code) \(message)"
            }
        }
    }

    struct Frame: Equatable {
        var header: ResponseFrame.Header
        var lines: [String]
    }

    /// `$USEDSPACE_SOCKET`, else `$XDG_RUNTIME_DIR/usedspace.sock`.
    static var socketPath: String? {
        ProcessEnvironment.value("USEDSPACE_SOCKET") ?? ProcessEnvironment.runtimeDirectory.map { $0 + "/usedspace.sock" }
    }

    let descriptor: Int32
    private var buffer: [UInt8] = []
    private static let maximumLine = 1 << 20

    init(path: String) throws(Failure) {
        do {
            descriptor = try UnixSocket.connect(to: path)
        } catch {
            throw .unreachable(error.description)
        }
    }

    deinit { Descriptor.close(descriptor) }

    func send(_ line: String) throws(Failure) {
        let bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent: Int
            do {
                sent = try Descriptor.send(descriptor, bytes, from: offset)
            } catch {
                throw .unreachable(error.description)
            }
            if sent == 0 && !Descriptor.wait(descriptor, forWriting: true, milliseconds: 1000) { throw .timedOut }
            offset += sent
        }
    }

    /// Reads one frame, waiting at most until `deadline` (monotonic ns; nil waits forever).
    func readFrame(deadline: UInt64?) throws(Failure) -> Frame {
        let headerLine = try readLine(deadline: deadline)
        guard let header = ResponseFrame.parseHeader(headerLine) else { throw .protocolError(headerLine) }
        var lines: [String] = []
        switch header {
        case .ok(let count), .update(let count):
            for _ in 0..<count { lines.append(try readLine(deadline: deadline)) }
        case .error:
            break
        }
        return Frame(header: header, lines: lines)
    }

    /// One request, one answer; an `error` answer is thrown.
    func request(_ line: String, deadline: UInt64?) throws(Failure) -> [String] {
        try send(line)
        let frame = try readFrame(deadline: deadline)
        switch frame.header {
        case .ok: return frame.lines
        case .error(let code, let message): throw .refused(code: code, message: message)
        case .update: throw .protocolError("update before ok")
        }
    }

    private func readLine(deadline: UInt64?) throws(Failure) -> String {
        var searchFrom = 0
        while true {
            if let newline = buffer[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            searchFrom = buffer.count
            guard buffer.count < Self.maximumLine else { throw .protocolError("a line longer than 1 MiB") }
            var wait: Int32 = -1
            if let deadline {
                let now = WallClock.monotonicNanoseconds()
                guard now < deadline else { throw .timedOut }
                wait = Int32(min((deadline - now) / 1_000_000 + 1, 60_000))
            }
            guard Descriptor.wait(descriptor, milliseconds: wait) else {
                if deadline == nil { continue }
                throw .timedOut
            }
            var chunk = [UInt8](repeating: 0, count: 8192)
            let result: Descriptor.ReadResult
            do {
                result = try Descriptor.read(descriptor, into: &chunk)
            } catch {
                throw .unreachable(error.description)
            }
            switch result {
            case .data(let count): buffer += chunk[0..<count]
            case .wouldBlock: continue
            case .endOfFile: throw .closed
            }
        }
    }
}
