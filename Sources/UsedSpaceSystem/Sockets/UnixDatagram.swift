import CLinux

/// Unix datagram sockets: a `watch`'s control socket, and `usedspace click` sending to it.
/// One datagram is one message: no connection to manage, nothing half read.
public enum UnixDatagram {
    /// A non-blocking datagram socket bound at `path` with `mode` (umask applied around
    /// bind(2), so the file never exists with wider permissions).
    public static func bind(at path: String, mode: mode_t = 0o600) throws(UnixSocket.Failure) -> FileDescriptor {
        let descriptor = try newSocket()
        var (address, length) = try UnixSocket.address(path)
        let previousMask = umask(~mode & 0o777)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { CLinux.bind(descriptor.rawValue, $0, length) }
        }
        umask(previousMask)
        guard bound == 0 else { throw .system(.current("bind")) }
        return descriptor
    }

    /// Sends one datagram to the socket at `path`, without waiting.
    public static func send(_ bytes: [UInt8], to path: String) throws(UnixSocket.Failure) {
        let descriptor = try newSocket()
        var (address, length) = try UnixSocket.address(path)
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor.rawValue, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        guard sent == bytes.count else { throw .system(.current("sendto")) }
    }

    /// A socket connected to the datagram socket at `address` (a path, or "@name" in the
    /// abstract namespace): what `send(_:on:)` writes to, made once for many messages.
    public static func connect(to address: String) throws(UnixSocket.Failure) -> FileDescriptor {
        let descriptor = try newSocket()
        var (socketAddress, length) = try UnixSocket.address(address, allowingAbstract: true)
        let connected = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { CLinux.connect(descriptor.rawValue, $0, length) }
        }
        guard connected == 0 else { throw .system(.current("connect")) }
        return descriptor
    }

    /// Sends one datagram on a connected socket, without waiting.
    public static func send(_ bytes: [UInt8], on descriptor: borrowing FileDescriptor) throws(UnixSocket.Failure) {
        let sent = bytes.withUnsafeBytes { CLinux.send(descriptor.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw .system(.current("send")) }
    }

    /// The datagrams waiting on `descriptor`, each at most 256 bytes.
    public static func receiveAll(_ descriptor: Int32) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while messages.count < 64 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && clinux_errno() == EINTR { continue }
            guard count >= 0 else { break }
            messages.append(Array(buffer[0..<count]))
        }
        return messages
    }

    private static func newSocket() throws(UnixSocket.Failure) -> FileDescriptor {
        let descriptor = socket(AF_UNIX, clinux_sock_dgram | clinux_sock_cloexec | clinux_sock_nonblock, 0)
        guard descriptor >= 0 else { throw .system(.current("socket")) }
        return FileDescriptor(owning: descriptor)
    }
}
