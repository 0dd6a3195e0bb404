/// Builds one JSON object on one line, keys in the order they are added.
public struct JSONObjectWriter {
    private var text = "{"
    private var isEmpty = true

    public init() {}

    public mutating func add(_ key: String, _ value: String?) {
        addRaw(key, value.map(JSONObjectWriter.quoted) ?? "null")
    }

    public mutating func add(_ key: String, _ value: UInt64?) {
        addRaw(key, value.map { String($0) } ?? "null")
    }

    public mutating func add(_ key: String, _ value: Int?) {
        addRaw(key, value.map { String($0) } ?? "null")
    }

    public mutating func add(_ key: String, _ value: Bool) {
        addRaw(key, value ? "true" : "false")
    }

    /// Doubles in their shortest round-trip form; non-finite values, which JSON cannot
    /// carry, become null.
    public mutating func add(_ key: String, _ value: Double?) {
        guard let value, value.isFinite else { return addRaw(key, "null") }
        addRaw(key, value.description)
    }

    /// Adds an already-encoded JSON value (an object or array built elsewhere).
    public mutating func addRaw(_ key: String, _ json: String) {
        text += (isEmpty ? "" : ",") + JSONObjectWriter.quoted(key) + ":" + json
        isEmpty = false
    }

    public func finish() -> String { text + "}" }

    /// A JSON string literal: quotes, backslashes and control characters (C0, DEL, C1, the
    /// line and paragraph separators) escaped; all other characters written as UTF-8.
    public static func quoted(_ string: String) -> String {
        var out = "\""
        out.unicodeScalars.reserveCapacity(string.unicodeScalars.count + 2)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}":
                out += "\\u" + hex4(scalar.value)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(value >> 12 & 0xF)], digits[Int(value >> 8 & 0xF)],
                       digits[Int(value >> 4 & 0xF)], digits[Int(value & 0xF)]])
    }
}
