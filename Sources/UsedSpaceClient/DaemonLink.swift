import UsedSpaceCore
import UsedSpaceSystem

/// A subscription to usedspaced, read without blocking from `watch`'s poll loop.
final class DaemonLink {
    enum Event {
        /// The snapshots of a frame: the answer to the subscription (every watched path
        /// with `all`), or one update.
        case snapshots([Snapshot], isAnswer: Bool)
        case refused(code: String, message: String)
        case closed
    }

    let descriptor: Int32
    let openedAt: UInt64
    private(set) var answered = false
    private var decoder = ResponseFrameDecoder()

    /// Connects and subscribes; nil when no daemon listens at `socket`.
    init?(socket: String, view: ViewRequest, now: UInt64) {
        guard (try? FileStatus.of(socket))?.isSocket == true,
              let descriptor = try? UnixSocket.connect(to: socket)
        else { return nil }
        self.descriptor = descriptor
        openedAt = now
        let request = Array(view.requestLine(verb: "subscribe").utf8)
        // Failing from here on runs deinit (every property is set), which closes the
        // descriptor: closing it here as well would close whatever reused its number.
        guard (try? Descriptor.send(descriptor, request, from: 0)) == request.count else { return nil }
    }

    deinit { Descriptor.close(descriptor) }

    /// Reads what has arrived.
    func read() -> [Event] {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        let result: Descriptor.ReadResult
        do {
            result = try Descriptor.read(descriptor, into: &chunk)
        } catch {
            return [.closed]
        }
        switch result {
        case .wouldBlock:
            return []
        case .endOfFile:
            return [.closed]
        case .data(let count):
            let frames: [ResponseFrameDecoder.Frame]
            do {
                frames = try decoder.feed(chunk[0..<count])
            } catch {
                return [.closed]
            }
            return frames.map { frame in
                answered = true
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
