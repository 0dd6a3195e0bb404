/// The widget's `UIProgressView` as text: `[███████░░░░░░░░░░░░░]`.
public enum ProgressBar {
    public static let defaultWidth = 20
    public static let filledCell: Character = "█"
    public static let emptyCell: Character = "░"

    /// Cells are filled by the floor of the used share, so a bar is full only when the
    /// filesystem is; nil (no numbers) draws an empty bar.
    public static func render(_ fraction: Fraction?, width: Int = defaultWidth) -> String {
        let cells = max(width, 0)
        let filled = fraction.map { min(Int($0.floorOfScaled(by: UInt64(cells))), cells) } ?? 0
        return "[" + String(repeating: filledCell, count: filled)
            + String(repeating: emptyCell, count: cells - filled) + "]"
    }
}
