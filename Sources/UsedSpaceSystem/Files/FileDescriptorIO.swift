import CLinux

/// Reading and writing: the non-blocking calls of an event loop, and the one loop that
/// writes everything.
extension FileDescriptor {
    public enum ReadResult: Equatable {
        case data(Int)
        case wouldBlock
        case endOfFile
    }

    public borrowing func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> ReadResult {
        try Self.read(rawValue, into: buffer)
    }

    /// Reads into the start of `buffer`.
    public borrowing func read(into buffer: inout [UInt8]) throws(SystemError) -> ReadResult {
        try Self.read(rawValue, into: &buffer)
    }

    /// The same, for a descriptor this program does not own (stdin).
    public static func read(_ descriptor: Int32, into buffer: inout [UInt8]) throws(SystemError) -> ReadResult {
        let result = buffer.withUnsafeMutableBytes { raw in Result { () throws(SystemError) in try read(descriptor, into: raw) } }
        return try result.get()
    }

    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> ReadResult {
        guard let count = try SystemCall.nonBlocking("read", { CLinux.read(descriptor, buffer.baseAddress, buffer.count) }) else {
            return .wouldBlock
        }
        return count == 0 ? .endOfFile : .data(count)
    }

    /// Sends what the socket takes without blocking and without SIGPIPE; returns how much.
    public borrowing func send(_ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        try SystemCall.nonBlocking("send", {
            CLinux.send(rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }) ?? 0
    }

    /// Sends `bytes[offset...]` as far as the socket takes it without blocking.
    public borrowing func send(_ bytes: [UInt8], from offset: Int = 0) throws(SystemError) -> Int {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(SystemError) in try send(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
        }
        return try result.get()
    }

    /// Writes all of `bytes` (waiting while a non-blocking descriptor is full), or throws.
    public borrowing func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        try Self.writeAll(bytes, to: rawValue)
    }

    public borrowing func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try writeAll(raw) } }
        try result.get()
    }

    /// The write-everything loop, for descriptors this program does not own (stdout) too.
    /// A socket's peer that is gone is EPIPE, never SIGPIPE (send with MSG_NOSIGNAL would
    /// not work on a pipe; callers ignore SIGPIPE once, at start-up).
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let remaining = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            if let written = try SystemCall.nonBlocking("write", { CLinux.write(descriptor, remaining.baseAddress, remaining.count) }) {
                offset += written
            } else {
                _ = waitUntilReady(descriptor, for: .writable, milliseconds: -1)
            }
        }
    }

    public enum Readiness {
        case readable
        case writable
    }

    /// Waits until the descriptor is readable (or writable), for at most `milliseconds`
    /// (-1: without limit). A hang-up or error counts as ready: the next call says which.
    public borrowing func wait(for readiness: Readiness, milliseconds: Int32) -> Bool {
        Self.waitUntilReady(rawValue, for: readiness, milliseconds: milliseconds)
    }

    static func waitUntilReady(_ descriptor: Int32, for readiness: Readiness, milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(readiness == .readable ? POLLIN : POLLOUT), revents: 0)
        let result = try? SystemCall.retrying("poll") { poll(&poller, 1, milliseconds) }
        return (result ?? 0) > 0
    }

    public borrowing func setNonBlocking() throws(SystemError) {
        let flags = try SystemCall.retrying("fcntl") { clinux_fcntl(rawValue, F_GETFL, 0) }
        _ = try SystemCall.retrying("fcntl") { clinux_fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
    }
}
