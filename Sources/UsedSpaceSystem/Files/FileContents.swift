import CLinux
import UsedSpaceCore

/// Reads whole (small) files with plain read(2): no stdio, no Foundation.
public enum FileContents {
    /// Reads at most `limit` bytes; a longer file is an error rather than silently cut,
    /// since every file this program reads is small and a huge one is not what we expect.
    public static func read(_ path: String, limit: Int = 4 << 20) throws(FileReadError) -> [UInt8] {
        let file = try FileReadError.wrapping { () throws(SystemError) in try FileDescriptor.open(path, O_RDONLY) }
        return try read(file, limit: limit)
    }

    /// Everything `file` gives until its end (at most `limit` bytes).
    public static func read(_ file: borrowing FileDescriptor, limit: Int) throws(FileReadError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count: Int
            do {
                count = try SystemCall.retrying("read") { chunk.withUnsafeMutableBytes { CLinux.read(file.rawValue, $0.baseAddress, $0.count) } }
            } catch {
                throw .system(error)
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            if bytes.count > limit { throw .tooLarge(limit: limit) }
        }
    }

    public static func readText(_ path: String, limit: Int = 4 << 20) throws(FileReadError) -> String {
        String(decoding: try read(path, limit: limit), as: UTF8.self)
    }
}

public enum FileReadError: Error, Equatable, Sendable, CustomStringConvertible {
    case system(SystemError)
    case tooLarge(limit: Int)
    /// The file lies on a filesystem that did not answer in time (a dead network mount).
    case timedOut(microseconds: UInt64)

    public var description: String {
        switch self {
        case .system(let error): return error.description
        case .tooLarge(let limit): return "larger than \(limit) bytes"
        case .timedOut(let microseconds):
            return "its filesystem did not answer within \(DurationParser.describe(microseconds: microseconds)) (hung mount?)"
        }
    }

    /// What `body` returns, its system error thrown as a read error.
    static func wrapping<Value: ~Copyable>(_ body: () throws(SystemError) -> Value) throws(FileReadError) -> Value {
        do { return try body() } catch { throw .system(error) }
    }

    public var isNotFound: Bool {
        if case .system(let error) = self { return error.isNotFound }
        return false
    }
}
