/// The formats `status` and `watch` write (`--format`).
public enum OutputFormat: String, CaseIterable, Sendable {
    case text
    case json
    case i3bar
    case i3blocks
    case polybar
    case waybar

    public static var names: String { allCases.map { $0.rawValue }.joined(separator: ", ") }

    /// A status bar's format: the ones the [bar] settings of the configuration apply to.
    public var isBar: Bool { self != .text && self != .json }
}
