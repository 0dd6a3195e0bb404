import CLinux

/// Unix stream sockets: the daemon's listening socket and the clients' connections.
public enum UnixSocket {
    /// sun_path holds 108 bytes including the terminating NUL.
    public static let maximumPathLength = 107

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case pathTooLong(String)
        case system(SystemError)

        public var description: String {
            switch self {
            case .pathTooLong(let path): return "\(path): socket path longer than \(UnixSocket.maximumPathLength) bytes"
            case .system(let error): return error.description
            }
        }
    }

    static func address(_ path: String, allowingAbstract: Bool = false) throws(Failure) -> (sockaddr_un, socklen_t) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathLength else { throw .pathTooLong(path) }
        // "@name", where allowed: the abstract namespace (a leading NUL, the length says where
        // it ends), as systemd writes such an address in $NOTIFY_SOCKET.
        let abstract = allowingAbstract && bytes[0] == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        return (address, length)
    }

    static func newSocket() throws(Failure) -> FileDescriptor {
        let descriptor = socket(AF_UNIX, clinux_sock_stream | clinux_sock_cloexec | clinux_sock_nonblock, 0)
        guard descriptor >= 0 else { throw .system(.current("socket")) }
        return FileDescriptor(owning: descriptor)
    }

    /// A non-blocking listening socket bound at `path`, created with `mode` (umask applied
    /// around bind(2) so the file never exists with wider permissions).
    public static func listen(at path: String, mode: mode_t = 0o600, backlog: Int32 = 128) throws(Failure) -> FileDescriptor {
        let descriptor = try newSocket()
        var (address, length) = try self.address(path)
        let previousMask = umask(~mode & 0o777)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor.rawValue, $0, length) }
        }
        umask(previousMask)
        guard bound == 0 else { throw .system(.current("bind")) }
        chmod(path, mode)
        guard CLinux.listen(descriptor.rawValue, backlog) == 0 else { throw .system(.current("listen")) }
        return descriptor
    }

    /// Connects without blocking: a Unix socket either accepts at once, is refused, or has a
    /// full backlog (EAGAIN), which we report rather than wait on.
    public static func connect(to path: String) throws(Failure) -> FileDescriptor {
        let descriptor = try newSocket()
        var (address, length) = try self.address(path)
        do {
            _ = try SystemCall.retrying("connect") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { CLinux.connect(descriptor.rawValue, $0, length) }
                }
            }
        } catch {
            throw .system(error)
        }
        return descriptor
    }

    /// Accepts one pending connection as a non-blocking descriptor, or nil when none waits.
    public static func accept(_ listener: borrowing FileDescriptor) throws(SystemError) -> FileDescriptor? {
        while true {
            let descriptor = clinux_accept4(listener.rawValue, clinux_sock_cloexec | clinux_sock_nonblock)
            if descriptor >= 0 { return FileDescriptor(owning: descriptor) }
            switch clinux_errno() {
            case EINTR: continue
            // A connection that went away between poll and accept is not an error of ours.
            case EAGAIN, ECONNABORTED, EPROTO: return nil
            default: throw .current("accept4")
            }
        }
    }

    /// The uid and pid of the process at the other end (SO_PEERCRED).
    public static func peerCredentials(_ descriptor: borrowing FileDescriptor) throws(SystemError) -> (pid: Int32, uid: UInt32) {
        var pid: Int32 = 0, uid: UInt32 = 0, gid: UInt32 = 0
        guard clinux_peer_credentials(descriptor.rawValue, &pid, &uid, &gid) == 0 else { throw .current("getsockopt(SO_PEERCRED)") }
        return (pid, uid)
    }

    /// Whether `descriptor` is a listening Unix stream socket (what systemd should pass us).
    public static func isListeningUnixStream(_ descriptor: borrowing FileDescriptor) -> Bool {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(descriptor.rawValue, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        return option(SO_TYPE) == clinux_sock_stream && (option(SO_ACCEPTCONN) ?? 0) != 0 && option(SO_DOMAIN) == AF_UNIX
    }

    /// A connected pair (socketpair(2)), non-blocking: for tests of the code that serves one.
    @frozen public struct Pair: ~Copyable {
        public var first: FileDescriptor
        public var second: FileDescriptor
    }

    public static func pair() throws(SystemError) -> Pair {
        var ends: [Int32] = [-1, -1]
        _ = try SystemCall.retrying("socketpair") {
            socketpair(AF_UNIX, clinux_sock_stream | clinux_sock_cloexec | clinux_sock_nonblock, 0, &ends)
        }
        return Pair(first: FileDescriptor(owning: ends[0]), second: FileDescriptor(owning: ends[1]))
    }
}

/// unlink(2), for the socket file the daemon bound.
@discardableResult
public func unlinkFile(_ path: String) -> Bool { unlink(path) == 0 }
