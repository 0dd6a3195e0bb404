import Glibc
import UsedSpaceSystem

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
        guard let descriptor = try? UnixSocket.connect(to: path) else { return .stale }
        defer { Descriptor.close(descriptor) }
        // A program that greets and hangs up may be gone before the ping is sent (EPIPE):
        // what it said is still there to read, so the send's result decides nothing.
        _ = try? Descriptor.send(descriptor, Array("ping\n".utf8), from: 0)
        let deadline = WallClock.monotonicNanoseconds() + UInt64(milliseconds) * 1_000_000
        var received: [UInt8] = []
        while received.count < 64 {
            let now = WallClock.monotonicNanoseconds()
            guard now < deadline else { break }
            guard Descriptor.wait(descriptor, milliseconds: Int32((deadline - now) / 1_000_000) + 1) else { break }
            var chunk = [UInt8](repeating: 0, count: 64)
            switch try? Descriptor.read(descriptor, into: &chunk) {
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
