/// Reassembles the daemon's frames (`ok N`, `update N`, `error …`) from bytes as they arrive,
/// for clients that read without blocking.
public struct ResponseFrameDecoder {
    public struct Frame: Equatable, Sendable {
        public var header: ResponseFrame.Header
        public var lines: [String]
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case badHeader(String)
        case lineTooLong

        public var description: String {
            switch self {
            case .badHeader(let line): return "unexpected line from the daemon: \(ControlCharacters.replaced(in: String(line.prefix(80))))"
            case .lineTooLong: return "a line from the daemon is longer than 1 MiB"
            }
        }
    }

    public static let maximumLineLength = 1 << 20
    private var buffer: [UInt8] = []
    private var header: ResponseFrame.Header?
    private var expected = 0
    private var lines: [String] = []

    public init() {}

    /// Adds bytes; returns the frames they complete.
    public mutating func feed<Bytes: Collection>(_ bytes: Bytes) throws(Failure) -> [Frame] where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        var frames: [Frame] = []
        var start = 0
        while let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: buffer[start..<newline], as: UTF8.self)
            start = newline + 1
            if header == nil {
                guard let parsed = ResponseFrame.parseHeader(line) else { throw .badHeader(line) }
                switch parsed {
                case .ok(let count), .update(let count):
                    header = parsed
                    expected = count
                case .error:
                    frames.append(Frame(header: parsed, lines: []))
                    continue
                }
            } else {
                lines.append(line)
            }
            if let complete = header, lines.count == expected {
                frames.append(Frame(header: complete, lines: lines))
                header = nil
                lines = []
            }
        }
        buffer.removeFirst(start)
        guard buffer.count <= Self.maximumLineLength else { throw .lineTooLong }
        return frames
    }
}
