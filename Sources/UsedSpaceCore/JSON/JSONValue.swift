/// A parsed JSON value. Numbers keep their text so that 64-bit counts survive exactly.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number as an unsigned integer, when it is written as one and fits.
    public var uint64Value: UInt64? {
        if case .number(let text) = self { return UInt64(text) }
        return nil
    }

    /// The number as an integer, when it is written as one and fits.
    public var intValue: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }

    public var isNull: Bool { self == .null }
}
