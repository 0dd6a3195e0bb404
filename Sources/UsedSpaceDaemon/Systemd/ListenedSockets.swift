import CSystemd
import UsedSpaceSystem

/// Sockets passed by systemd socket activation (sd_listen_fds(3)).
enum ListenedSockets {
    /// The passed socket, or nil when the daemon was not socket-activated. (sd_listen_fds
    /// with unset_environment: our children must not think it is theirs.)
    static func take() throws(DaemonFailure) -> FileDescriptor? {
        let count: Int32
        do { count = try SystemError.systemd("sd_listen_fds", sd_listen_fds(1)) } catch { throw DaemonFailure(error) }
        guard count > 0 else { return nil }
        guard count == 1 else { throw DaemonFailure("systemd passed \(count) sockets; usedspace.socket should pass exactly one") }
        let socket = FileDescriptor(owning: SD_LISTEN_FDS_START)
        guard UnixSocket.isListeningUnixStream(socket) else {
            throw DaemonFailure("the socket systemd passed is not a listening Unix stream socket (ListenStream= with a path)")
        }
        do { try socket.setNonBlocking() } catch { throw DaemonFailure(error) }
        return socket
    }
}
