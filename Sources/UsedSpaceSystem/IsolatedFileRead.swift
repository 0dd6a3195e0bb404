import CLinux
import Glibc

/// Reads a small file that may lie on a filesystem that hangs: in a child process that can
/// be left behind after `timeout`, when the file is under a network or FUSE mount (by the
/// path's text, MountTable.mayHang); with a plain read otherwise, which costs nothing
/// more. Safe in a process with threads (the child runs C code only).
public enum IsolatedFileRead {
    public static func read(_ path: String, limit: Int, timeoutMicroseconds: UInt64) throws(FileReadError) -> [UInt8] {
        guard MountTable.mayHang(path) else { return try FileContents.read(path, limit: limit) }
        let pipe = try FileReadError.wrapping { () throws(SystemError) in try FileDescriptor.pipe() }
        let child = path.withCString { clinux_fork_file_reader($0, pipe.writing.rawValue, limit) }
        let writing = pipe.writing
        writing.close()
        guard child > 0 else { throw .system(.current("fork")) }
        switch IsolatedChild.collect(child: child, output: pipe.reading, timeoutMilliseconds: Int32(min(timeoutMicroseconds / 1000, 600_000))) {
        case .timedOut:
            throw .timedOut(microseconds: timeoutMicroseconds)
        case .finished(let bytes, let status):
            if status == 0 {
                guard bytes.count <= limit else { throw .tooLarge(limit: limit) }
                return bytes
            }
            let failedRead = status & CLINUX_READER_FAILED_READ != 0
            throw .system(SystemError(call: failedRead ? "read" : "open", errno: status & 0x7f))
        }
    }

    public static func readText(_ path: String, limit: Int, timeoutMicroseconds: UInt64) throws(FileReadError) -> String {
        String(decoding: try read(path, limit: limit, timeoutMicroseconds: timeoutMicroseconds), as: UTF8.self)
    }
}
