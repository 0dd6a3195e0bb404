import CSystemd
import UsedSpaceSystem

/// Sockets passed by systemd socket activation (sd_listen_fds(3)).
enum ListenedSockets {
    enum Failure: Error, CustomStringConvertible {
        case unexpectedCount(Int)
        case notAListeningUnixStream

        var description: String {
            switch self {
            case .unexpectedCount(let count):
                return "systemd passed \(count) sockets; usedspace.socket should pass exactly one"
            case .notAListeningUnixStream:
                return "the socket systemd passed is not a listening Unix stream socket (ListenStream= with a path)"
            }
        }
    }

    /// The passed socket, or nil when the daemon was not socket-activated. (sd_listen_fds
    /// with unset_environment: our children must not think it is theirs.)
    static func take() throws -> FileDescriptor? {
        let count = try SystemdError.check("sd_listen_fds", sd_listen_fds(1))
        guard count > 0 else { return nil }
        guard count == 1 else { throw Failure.unexpectedCount(Int(count)) }
        let socket = FileDescriptor(owning: SD_LISTEN_FDS_START)
        guard UnixSocket.isListeningUnixStream(socket) else { throw Failure.notAListeningUnixStream }
        try socket.setNonBlocking()
        return socket
    }
}
