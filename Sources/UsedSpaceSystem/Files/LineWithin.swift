import CLinux

/// One line read from a descriptor before a deadline, and no more than `limit` bytes of it:
/// for a question or an answer from another process that may never come, come cut short
/// or never end (the daemon's helper, usedspace-writers@.service).
public enum LineWithin {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case timedOut
        case tooLong(Int)
        /// The other end closed before the end of the line.
        case closed
        case system(SystemError)

        public var description: String {
            switch self {
            case .timedOut: return "no answer in time"
            case .tooLong(let limit): return "a line longer than \(limit) bytes"
            case .closed: return "closed before the end of the line"
            case .system(let error): return error.description
            }
        }
    }

    /// The line without its newline; what follows it is left unread or dropped.
    public static func read(from descriptor: Int32, limit: Int, deadline: UInt64) throws(Failure) -> [UInt8] {
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { throw .timedOut }
            let milliseconds = Int32(min((deadline - now) / 1_000_000 + 1, 60_000))
            guard FileDescriptor.waitUntilReady(descriptor, for: .readable, milliseconds: milliseconds) else { continue }
            let result: FileDescriptor.ReadResult
            do { result = try FileDescriptor.read(descriptor, into: &chunk) } catch { throw .system(error) }
            switch result {
            case .wouldBlock:
                continue
            case .endOfFile:
                throw .closed
            case .data(let count):
                if let newline = chunk[0..<count].firstIndex(of: UInt8(ascii: "\n")) {
                    line += chunk[0..<newline]
                    guard line.count <= limit else { throw .tooLong(limit) }
                    return line
                }
                line += chunk[0..<count]
                guard line.count <= limit else { throw .tooLong(limit) }
            }
        }
    }
}
