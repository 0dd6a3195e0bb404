/// Builds one JSON object on one line, keys in the order they are added.
///
/// Written as UTF-8 bytes, escaped byte by byte: a snapshot is encoded at every publish
/// (the daemon's update to its subscribers), and going through Unicode scalars and String
/// concatenation cost ten times as much.
public struct JSONObjectWriter {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var isEmpty = true

    public init() {
        bytes.reserveCapacity(512)
    }

    public mutating func add(_ key: String, _ value: String?) {
        beginMember(key)
        if let value { Self.appendQuoted(value, to: &bytes) } else { appendNull() }
    }

    public mutating func add(_ key: String, _ value: UInt64?) {
        beginMember(key)
        if let value { Self.appendDecimal(value, to: &bytes) } else { appendNull() }
    }

    public mutating func add(_ key: String, _ value: Int?) {
        beginMember(key)
        guard let value else { return appendNull() }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        Self.appendDecimal(UInt64(value.magnitude), to: &bytes)
    }

    public mutating func add(_ key: String, _ value: Bool) {
        beginMember(key)
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
    }

    /// Doubles in their shortest round-trip form; non-finite values, which JSON cannot
    /// carry, become null.
    public mutating func add(_ key: String, _ value: Double?) {
        beginMember(key)
        guard let value, value.isFinite else { return appendNull() }
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Adds an already-encoded JSON value (an object or array built elsewhere).
    public mutating func addRaw(_ key: String, _ json: String) {
        beginMember(key)
        bytes.append(contentsOf: json.utf8)
    }

    public func finish() -> String {
        var text = bytes
        text.append(UInt8(ascii: "}"))
        return String(decoding: text, as: UTF8.self)
    }

    private mutating func beginMember(_ key: String) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        Self.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func appendNull() {
        bytes.append(contentsOf: Self.nullBytes)
    }

    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)
    private static let nullBytes: [UInt8] = Array("null".utf8)

    private static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        guard value >= 10 else { return bytes.append(UInt8(ascii: "0") + UInt8(value)) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value, count = 0
            while rest > 0 {
                digits[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)...]))
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters (C0, DEL, C1, the
    /// line and paragraph separators) escaped; all other characters written as UTF-8.
    public static func quoted(_ string: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count + 2)
        appendQuoted(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `string` as a JSON string literal (see `quoted`). The escapes are found in
    /// its UTF-8 (C1 controls are C2 80…C2 9F, the separators E2 80 A8 and E2 80 A9); what
    /// needs none is copied as it is.
    static func appendQuoted(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            // Keys and most values are printable ASCII: one pass finds nothing to escape.
            guard utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 >= 0x7F }) else {
                bytes.append(contentsOf: utf8)
                return
            }
            var copied = 0
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                var escape: [UInt8]?
                var length = 1
                switch byte {
                case UInt8(ascii: "\""): escape = Array("\\\"".utf8)
                case UInt8(ascii: "\\"): escape = Array("\\\\".utf8)
                case 0x0A: escape = Array("\\n".utf8)
                case 0x0D: escape = Array("\\r".utf8)
                case 0x09: escape = Array("\\t".utf8)
                case 0x08: escape = Array("\\b".utf8)
                case 0x0C: escape = Array("\\f".utf8)
                case 0x00..<0x20, 0x7F: escape = unicodeEscape(UInt32(byte))
                case 0xC2 where index + 1 < utf8.count && (0x80...0x9F).contains(utf8[index + 1]):
                    escape = unicodeEscape(UInt32(utf8[index + 1]))
                    length = 2
                case 0xE2 where index + 2 < utf8.count && utf8[index + 1] == 0x80 && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
                    escape = unicodeEscape(utf8[index + 2] == 0xA8 ? 0x2028 : 0x2029)
                    length = 3
                default:
                    break
                }
                if let escape {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[copied..<index]))
                    bytes.append(contentsOf: escape)
                    copied = index + length
                }
                index += length
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[copied...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func unicodeEscape(_ value: UInt32) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return Array("\\u".utf8) + [digits[Int(value >> 12 & 0xF)], digits[Int(value >> 8 & 0xF)],
                                    digits[Int(value >> 4 & 0xF)], digits[Int(value & 0xF)]]
    }
}
