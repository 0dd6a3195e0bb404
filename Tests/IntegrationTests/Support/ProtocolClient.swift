import CTestSupport
import Foundation

/// A minimal client of usedspaced's line protocol, written for the tests independently of
/// the project's own client, so that each checks the other.
final class ProtocolClient {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    struct Frame: Equatable {
        var header: String
        var lines: [String]
    }

    /// Connected to the socket at `path`; `as` a user (the daemon of a user manager serves
    /// only its own user), or as this process.
    init(path: String, as user: (uid: uid_t, gid: gid_t)? = nil) throws {
        let user = user ?? (getuid(), getgid())
        let result = test_connect_unix_as(path, user.uid, user.gid)
        guard result >= 0 else {
            descriptor = -1
            throw HarnessFailure("connect \(path): \(String(cString: strerror(-result)))")
        }
        descriptor = result
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        try sendBytes(bytes)
    }

    func sendBytes(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw HarnessFailure("send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    func shutdownWriting() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// The next line, or nil at end of stream; throws after `timeout` seconds.
    func readLine(timeout: Double) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw HarnessFailure("no line within \(timeout) s (have \(buffer.count) bytes)") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return nil }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { return nil }
                throw HarnessFailure("read: \(String(cString: strerror(errno)))")
            }
            buffer += chunk[0..<count]
        }
    }

    /// Reads one frame: a header line and, for ok/update, the lines it announces.
    func readFrame(timeout: Double) throws -> Frame? {
        guard let header = try readLine(timeout: timeout) else { return nil }
        let parts = header.split(separator: " ")
        var lines: [String] = []
        if parts.count == 2, parts[0] == "ok" || parts[0] == "update", let count = Int(parts[1]) {
            for _ in 0..<count {
                guard let line = try readLine(timeout: timeout) else { throw HarnessFailure("stream ended inside a frame") }
                lines.append(line)
            }
        }
        return Frame(header: header, lines: lines)
    }

    func request(_ line: String, timeout: Double = 5) throws -> Frame {
        try send(line + "\n")
        guard let frame = try readFrame(timeout: timeout) else { throw HarnessFailure("connection closed") }
        return frame
    }

    /// Whether the daemon has closed this connection (reads EOF within `timeout`).
    func isClosedByPeer(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            do {
                if try readLine(timeout: max(deadline.timeIntervalSinceNow, 0.01)) == nil { return true }
            } catch {
                return false
            }
        }
        return false
    }
}

extension ProtocolClient.Frame {
    /// The JSON object of a `format=json` answer.
    var json: [String: Any]? {
        lines.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
