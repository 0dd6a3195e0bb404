/// The properties of `io.github.usedspace.UsedSpace1`, the daemon's root object on the
/// session bus (docs/dbus.md).
public enum DaemonBusProperty: String, CaseIterable, Sendable {
    case version = "Version"
    case configurationProblem = "ConfigurationProblem"

    public static let interface = "io.github.usedspace.UsedSpace1"

    public var typeCode: UInt8 { UInt8(ascii: "s") }

    public var isConstant: Bool { self == .version }

    /// `problem`: why the configuration file is not what runs, or nil.
    public func value(problem: String?) -> BusValue {
        switch self {
        case .version: return .string(UsedSpaceVersion.current)
        case .configurationProblem: return .string(problem ?? "")
        }
    }
}
