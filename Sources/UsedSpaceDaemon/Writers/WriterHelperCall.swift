import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// One question to the helper (usedspace-writers.socket), on a worker thread: connect, send
/// the mount point, read one line before the deadline, take it only if it is exactly what
/// FillWriterExchange says. Nothing here can block past the deadline: the socket is
/// non-blocking, and a full backlog is a refusal, not a wait.
enum WriterHelperCall {
    enum Reply: Equatable, Sendable {
        case outcome(FillWriterExchange.Outcome)
        /// Nobody listens there: the helper's units are not installed (or not running).
        case absent(String)
        /// Something answered, but not in time or not what a helper says.
        case refused(String)
    }

    static func ask(socket: String, mountPoint: String, deadline: UInt64) -> Reply {
        let connection: FileDescriptor
        do {
            connection = try UnixSocket.connect(to: socket)
        } catch {
            if case .system(let failure) = error, failure.errno == ENOENT || failure.errno == ECONNREFUSED {
                return .absent(error.description)
            }
            return .refused(error.description)
        }
        do {
            try connection.writeAll(Array(FillWriterExchange.question(mountPoint: mountPoint).utf8))
        } catch {
            return .refused(error.description)
        }
        let line: [UInt8]
        do {
            line = try LineWithin.read(from: connection.rawValue, limit: FillWriterExchange.maximumLineBytes, deadline: deadline)
        } catch {
            return .refused(error.description)
        }
        do {
            return .outcome(try FillWriterExchange.outcome(of: line))
        } catch {
            return .refused(error.description)
        }
    }
}
