import Glibc

/// Reads whole (small) files with plain read(2): no stdio, no Foundation.
public enum FileContents {
    /// Reads at most `limit` bytes; a longer file is an error rather than silently cut,
    /// since every file this program reads is small and a huge one is not what we expect.
    public static func read(_ path: String, limit: Int = 4 << 20) throws(FileReadError) -> [UInt8] {
        let descriptor: Int32
        do {
            descriptor = try retryingOnInterrupt("open") { open(path, O_RDONLY | O_CLOEXEC) }
        } catch { throw .system(error) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count: Int
            do {
                count = try retryingOnInterrupt("read") { chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) } }
            } catch { throw .system(error) }
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

    public var description: String {
        switch self {
        case .system(let error): return error.description
        case .tooLarge(let limit): return "larger than \(limit) bytes"
        }
    }
}
