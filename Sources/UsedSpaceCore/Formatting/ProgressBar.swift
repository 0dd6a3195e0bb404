/// The widget's `UIProgressView` as text: `[███████░░░░░░░░░░░░░]`.
public enum ProgressBar {
    public static let defaultWidth = 20
    public static let filledCell: Character = "█"
    public static let emptyCell: Character = "░"

    /// Cells are filled by the floor of the used share, so a bar is full only when the
    /// filesystem is; nil (no numbers) draws an empty bar.
    public static func render(_ fraction: Fraction?, width: Int = defaultWidth, glyphs: BarGlyphs = .blocks) -> String {
        let cells = max(width, 0)
        let filled = fraction.map { min(Int($0.floorOfScaled(by: UInt64(cells))), cells) } ?? 0
        return "[" + String(repeating: glyphs.filled, count: filled)
            + String(repeating: glyphs.empty, count: cells - filled) + "]"
    }
}

/// The two characters a bar is drawn with: a filled and an empty cell. `█░` by default;
/// `#-` (or any two) for fonts and terminals without them.
public struct BarGlyphs: Equatable, Sendable {
    public var filled: Character
    public var empty: Character

    public init(filled: Character, empty: Character) {
        self.filled = filled
        self.empty = empty
    }

    public static let blocks = BarGlyphs(filled: ProgressBar.filledCell, empty: ProgressBar.emptyCell)
    public static let ascii = BarGlyphs(filled: "#", empty: "-")

    /// Two printable characters, e.g. "#-" or "=."; "ascii" for "#-".
    public init?(_ text: String) {
        if text == "ascii" {
            self = .ascii
            return
        }
        let characters = Array(text)
        guard characters.count == 2, characters.allSatisfy({ character in
            character != " " && !character.unicodeScalars.contains { ControlCharacters.isControl($0) }
        }) else { return nil }
        self.init(filled: characters[0], empty: characters[1])
    }

    public var text: String { String(filled) + String(empty) }
}
