/// A value of a D-Bus property, as the daemon's interface has them (docs/dbus.md).
public enum BusValue: Equatable, Sendable {
    case string(String)
    case boolean(Bool)
    case int32(Int32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)

    /// The D-Bus type code: s, b, i, x, t or d.
    public var typeCode: UInt8 {
        switch self {
        case .string: return UInt8(ascii: "s")
        case .boolean: return UInt8(ascii: "b")
        case .int32: return UInt8(ascii: "i")
        case .int64: return UInt8(ascii: "x")
        case .uint64: return UInt8(ascii: "t")
        case .double: return UInt8(ascii: "d")
        }
    }
}
