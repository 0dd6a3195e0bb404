import CLinux

/// Reads a small file that may lie on a filesystem that hangs: in a child process that can
/// be left behind, when the file is under a network or FUSE mount (by the path's text,
/// MountTable.mayHang); with a plain read otherwise, which costs nothing more. Safe in a
/// process with threads (the child runs C code only).
///
/// `start` returns at once; the caller waits as long as it can afford (`wait`), and a
/// caller with a poll loop can go on without the file and take it when it arrives
/// (`descriptor`, then `readAvailable`): a home on a dead network mount then holds nothing
/// up, and its configuration still applies once the server answers.
public final class IsolatedFileRead {
    private let limit: Int
    private var output: IsolatedChild.Output?
    /// The text, or why there is none; nil while the child has not answered.
    public private(set) var result: Result<[UInt8], FileReadError>?

    public static func start(_ path: String, limit: Int) -> IsolatedFileRead {
        IsolatedFileRead(path, limit: limit)
    }

    private init(_ path: String, limit: Int) {
        self.limit = limit
        guard MountTable.mayHang(path) else {
            result = Result { () throws(FileReadError) in try FileContents.read(path, limit: limit) }
            return
        }
        guard let pipe = try? FileDescriptor.pipe() else {
            result = .failure(.system(.current("pipe")))
            return
        }
        // The end taken out before its number is read: FileDescriptor.Pipe says why.
        let writing = pipe.writing
        let child = path.withCString { clinux_fork_file_reader($0, writing.rawValue, limit) }
        writing.close()
        guard child > 0 else {
            result = .failure(.system(.current("fork")))
            return
        }
        output = IsolatedChild.Output(child: child, reading: pipe.reading)
    }

    /// The pipe to poll while the read is pending; nil once there is a result.
    public var descriptor: Int32? { result == nil ? output?.descriptor : nil }

    /// Takes what the child has written so far; true once there is a result.
    @discardableResult
    public func readAvailable() -> Bool {
        if result == nil, let output, output.readAvailable() { finish(output) }
        return result != nil
    }

    /// Waits up to `microseconds` for the result; true when there is one.
    public func wait(microseconds: UInt64) -> Bool {
        if result == nil, let output, output.wait(milliseconds: Int32(min(microseconds / 1000, 600_000))) { finish(output) }
        return result != nil
    }

    private func finish(_ output: IsolatedChild.Output) {
        guard let (bytes, status) = output.finished else { return }
        self.output = nil
        if status == 0 {
            result = bytes.count <= limit ? .success(bytes) : .failure(.tooLarge(limit: limit))
        } else {
            let failedRead = status & CLINUX_READER_FAILED_READ != 0
            result = .failure(.system(SystemError(call: failedRead ? "read" : "open", errno: status & 0x7f)))
        }
    }

    /// Reads the file, giving up after `timeoutMicroseconds` (the child is left behind).
    public static func read(_ path: String, limit: Int, timeoutMicroseconds: UInt64) throws(FileReadError) -> [UInt8] {
        let read = start(path, limit: limit)
        guard read.wait(microseconds: timeoutMicroseconds), let result = read.result else { throw .timedOut(microseconds: timeoutMicroseconds) }
        return try result.get()
    }

    public static func readText(_ path: String, limit: Int, timeoutMicroseconds: UInt64) throws(FileReadError) -> String {
        String(decoding: try read(path, limit: limit, timeoutMicroseconds: timeoutMicroseconds), as: UTF8.self)
    }
}
