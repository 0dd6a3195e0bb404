import Glibc

/// Reads and writes on non-blocking descriptors, the loop-side half of every connection.
public enum Descriptor {
    public enum ReadResult: Equatable {
        case data(Int)
        case wouldBlock
        case endOfFile
    }

    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> ReadResult {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count > 0 { return .data(count) }
            if count == 0 { return .endOfFile }
            switch errno {
            case EINTR: continue
            case EAGAIN: return .wouldBlock
            default: throw .current("read")
            }
        }
    }

    /// Sends what it can without blocking and without SIGPIPE; returns how much was sent.
    public static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        while true {
            let count = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN: return 0
            default: throw .current("send")
            }
        }
    }

    public static func close(_ descriptor: Int32) {
        // Linux releases the descriptor even when close(2) reports EINTR: never retry.
        _ = Glibc.close(descriptor)
    }

    /// Waits until `descriptor` is readable (or writable), for at most `milliseconds`.
    public static func wait(_ descriptor: Int32, forWriting: Bool = false, milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
        while true {
            let result = poll(&poller, 1, milliseconds)
            if result < 0 && errno == EINTR { continue }
            return result > 0
        }
    }
}

extension Descriptor {
    public static func setNonBlocking(_ descriptor: Int32) throws(SystemError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { throw .current("fcntl") }
    }
}


extension Descriptor {
    /// Reads into the start of `buffer`.
    public static func read(_ descriptor: Int32, into buffer: inout [UInt8]) throws(SystemError) -> ReadResult {
        let result = buffer.withUnsafeMutableBytes { raw in Result { () throws(SystemError) in try read(descriptor, into: raw) } }
        return try result.get()
    }

    /// Sends `bytes[offset...]` as far as the socket takes it without blocking.
    public static func send(_ descriptor: Int32, _ bytes: [UInt8], from offset: Int) throws(SystemError) -> Int {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(SystemError) in try send(descriptor, UnsafeRawBufferPointer(rebasing: raw[offset...])) }
        }
        return try result.get()
    }
}
