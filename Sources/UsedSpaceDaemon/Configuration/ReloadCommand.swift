import UsedSpaceCore
import UsedSpaceSystem

/// `usedspaced --reload`: asks the running daemon to reload its configuration and waits for
/// the outcome, so that `systemctl --user reload usedspace` (the unit's ExecReload=) fails,
/// with the file and line in its log, when the file is refused. (SIGHUP cannot say so.)
enum ReloadCommand {
    /// The daemon answers after reading the file, which may take up to the sample timeout
    /// on a filesystem that hangs; systemd's own limit (TimeoutSec=) is longer.
    static let answerTimeoutNanoseconds: UInt64 = 60_000_000_000

    static func run(_ options: DaemonOptions) -> Int32 {
        let socket: String
        do {
            socket = try DaemonPaths.resolve(options).socket
        } catch {
            StandardStreams.error("usedspaced: \(error)")
            return UsedSpaceDaemon.ExitStatus.failure
        }
        do throws(DaemonFailure) {
            return try exchange(socket)
        } catch {
            StandardStreams.error("usedspaced: cannot reach the daemon on \(socket): \(error)")
            return UsedSpaceDaemon.ExitStatus.failure
        }
    }

    /// Sends `reload` and reports the answer; throws when the daemon cannot be reached.
    private static func exchange(_ socket: String) throws(DaemonFailure) -> Int32 {
        let connection: FileDescriptor
        do { connection = try UnixSocket.connect(to: socket) } catch { throw DaemonFailure(error.description) }
        do { try connection.writeAll(Array("reload\n".utf8)) } catch { throw DaemonFailure(error) }
        var decoder = ResponseFrameDecoder()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = MonotonicClock.nanoseconds() + answerTimeoutNanoseconds
        while true {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline, connection.wait(for: .readable, milliseconds: Int32((deadline - now) / 1_000_000) + 1) else {
                StandardStreams.error("usedspaced: the daemon on \(socket) did not answer the reload")
                return UsedSpaceDaemon.ExitStatus.failure
            }
            let read: FileDescriptor.ReadResult
            do { read = try connection.read(into: &chunk) } catch { throw DaemonFailure(error) }
            guard case .data(let count) = read else {
                StandardStreams.error("usedspaced: the daemon on \(socket) closed the connection without answering the reload")
                return UsedSpaceDaemon.ExitStatus.failure
            }
            let frames: [ResponseFrameDecoder.Frame]
            do { frames = try decoder.feed(chunk[0..<count]) } catch { throw DaemonFailure(error.description) }
            guard let frame = frames.first else { continue }
            switch frame.header {
            case .ok:
                StandardStreams.write(frame.lines.map { $0 + "\n" }.joined())
                return 0
            case .error(_, let message):
                StandardStreams.error("usedspaced: configuration refused, the running one is kept: \(message)")
                return UsedSpaceDaemon.ExitStatus.failure
            case .update:
                continue
            }
        }
    }
}
