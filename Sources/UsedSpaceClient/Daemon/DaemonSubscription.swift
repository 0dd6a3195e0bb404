import UsedSpaceCore
import UsedSpaceSystem

/// A subscription to usedspaced, read without blocking from `watch`'s poll loop.
final class DaemonSubscription {
    enum Event {
        /// The snapshots of a frame: the answer to the subscription (every watched path
        /// with `all`), or one update.
        case snapshots([Snapshot], isAnswer: Bool)
        case refused(code: String, message: String)
        case closed
    }

    private let socket: FileDescriptor
    private var decoder = ResponseFrameDecoder()
    /// Read into at every update, made once (zeroing 16 KiB per read cost more than the read).
    private var chunk = [UInt8](repeating: 0, count: 16 << 10)

    /// Connects and subscribes; nil when no daemon listens at `socket`.
    init?(socket path: String, view: ViewRequest) {
        guard (try? FileStatus.of(path))?.isSocket == true, let socket = try? UnixSocket.connect(to: path) else { return nil }
        let request = Array(view.requestLine(verb: "subscribe").utf8)
        guard (try? socket.send(request)) == request.count else { return nil }
        self.socket = socket
    }

    var descriptor: Int32 { socket.rawValue }

    /// Reads what has arrived.
    func read() -> [Event] {
        guard let result = try? socket.read(into: &chunk) else { return [.closed] }
        switch result {
        case .wouldBlock:
            return []
        case .endOfFile:
            return [.closed]
        case .data(let count):
            guard let frames = try? decoder.feed(chunk[0..<count]) else { return [.closed] }
            return frames.map { frame in
                switch frame.header {
                case .error(let code, let message):
                    return .refused(code: code, message: message)
                case .ok, .update:
                    let snapshots = frame.lines.compactMap { try? SnapshotCodec.decode($0, source: .daemon) }
                    guard !snapshots.isEmpty, snapshots.count == frame.lines.count else { return .closed }
                    if case .ok = frame.header { return .snapshots(snapshots, isAnswer: true) }
                    return .snapshots(snapshots, isAnswer: false)
                }
            }
        }
    }
}
