/// The formats `status` and `watch` write (`--format`).
public enum OutputFormat: String, CaseIterable, Sendable {
    case text
    case json
    case i3bar
    case i3blocks
    case polybar
    case waybar

    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
