import CLinux

/// A file descriptor this program owns. It cannot be copied, so it has exactly one owner,
/// and it is closed exactly once: when that owner lets it go (or calls `close()`). A number
/// closed twice is a number closed under whoever was given it in between.
@frozen public struct FileDescriptor: ~Copyable {
    public let rawValue: Int32

    /// Takes ownership of `rawValue`, which nothing else may close.
    public init(owning rawValue: Int32) {
        self.rawValue = rawValue
    }

    deinit {
        // Linux releases the descriptor even when close(2) reports EINTR: never retry.
        _ = CLinux.close(rawValue)
    }

    /// Closes now (the same as letting go of it, said out loud).
    public consuming func close() {}

    /// Gives up ownership without closing: for a descriptor handed to someone who closes it.
    public consuming func release() -> Int32 {
        let rawValue = self.rawValue
        discard self
        return rawValue
    }

    /// open(2), always close-on-exec.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(SystemError) -> FileDescriptor {
        FileDescriptor(owning: try SystemCall.retrying("open") { clinux_open(path, flags | O_CLOEXEC, UInt32(mode)) })
    }

    /// The two ends of a pipe(2), close-on-exec. Take an end out (`let writing = pipe.writing`)
    /// before reading its rawValue: `pipe.writing.rawValue` stops Swift 6.0.3's optimizer
    /// ("SIL verification failed: a destructure of a move-only-type-with-deinit requires a
    /// drop_deinit").
    @frozen public struct Pipe: ~Copyable {
        public var reading: FileDescriptor
        public var writing: FileDescriptor
    }

    public static func pipe() throws(SystemError) -> Pipe {
        var ends: [Int32] = [-1, -1]
        _ = try SystemCall.retrying("pipe2") { clinux_pipe_cloexec(&ends) }
        return Pipe(reading: FileDescriptor(owning: ends[0]), writing: FileDescriptor(owning: ends[1]))
    }
}
