/// The table of `usedspace list`: aligned columns that fit the terminal.
///
/// Columns: Mounted on, Type, the bar, Use% (df's), Used, Free (df's Avail), Size,
/// IUse% (df -i's), RO (only when a filesystem is read-only), Full in (only when the
/// daemon has an estimate). When the table is wider than the terminal it gives up, in this
/// order, until it fits: mount points longer than 20 columns are shortened in the middle
/// (no shorter than needed), then the bar, IUse%, Type, Full in, Used and Size columns are
/// dropped, then mount points are shortened down to 10 columns; a line that still does not
/// fit is cut. Colours (on a terminal only) mark the bar and Use% of a filesystem at the
/// warning (yellow) or critical (red) level, and a filesystem that does not answer (red).
public enum ListTable {
    public enum Column: CaseIterable, Sendable {
        case mountPoint, type, bar, percent, used, free, size, inodes, readOnly, fullIn

        var header: String {
            switch self {
            case .mountPoint: return "Mounted on"
            case .type: return "Type"
            case .bar: return ""
            case .percent: return "Use%"
            case .used: return "Used"
            case .free: return "Free"
            case .size: return "Size"
            case .inodes: return "IUse%"
            case .readOnly: return "RO"
            case .fullIn: return "Full in"
            }
        }

        var alignsRight: Bool {
            switch self {
            case .percent, .used, .free, .size, .inodes: return true
            default: return false
            }
        }
    }

    /// What goes, in order, when the table is too wide (after long mount points).
    public static let dropOrder: [Column] = [.bar, .inodes, .type, .fullIn, .used, .size]
    static let separator = "  "
    static let firstMountPointLimit = 20
    static let lastMountPointLimit = 10

    public struct Options: Sendable {
        public var unit: SizeUnit
        /// The terminal's width; nil for no limit (a pipe).
        public var columns: Int?
        public var colors: Bool
        public var barCells: Int
        public var glyphs: BarGlyphs

        public init(unit: SizeUnit = .iec, columns: Int? = nil, colors: Bool = false, barCells: Int = 10, glyphs: BarGlyphs = .blocks) {
            self.unit = unit
            self.columns = columns
            self.colors = colors
            self.barCells = barCells
            self.glyphs = glyphs
        }
    }

    /// The lines of the table, header first, without line ends.
    public static func render(_ rows: [ListRow], options: Options) -> [String] {
        // Each cell's text is made once; the layout and the lines only measure and pad it.
        let texts = rows.map { row in Column.allCases.map { text($0, row, options: options) } }
        let layout = self.layout(rows, texts: texts, options: options)
        var lines = [line(layout.columns.map { Cell(column: $0, text: $0.header, colour: nil) }, layout: layout, options: options)]
        for (row, rowTexts) in zip(rows, texts) {
            lines.append(line(cells(row, texts: rowTexts, layout: layout), layout: layout, options: options))
        }
        return lines
    }

    struct Layout {
        var columns: [Column]
        var widths: [Column: Int]
    }

    struct Cell {
        /// nil for the text that says why a row has no numbers: it spans the rest.
        var column: Column?
        var text: String
        var colour: Colour?
    }

    /// Which columns are shown, and how wide each is (`texts`: every row's cells, in the
    /// order of Column.allCases).
    static func layout(_ rows: [ListRow], texts: [[String]], options: Options) -> Layout {
        var columns = Column.allCases
        if !rows.contains(where: { $0.stats?.readOnly == true }) { columns.removeAll { $0 == .readOnly } }
        if !rows.contains(where: { $0.timeToFull != nil && $0.stats != nil }) { columns.removeAll { $0 == .fullIn } }
        if options.barCells <= 0 { columns.removeAll { $0 == .bar } }
        var widths: [Column: Int] = [:]
        for column in columns {
            let position = Column.allCases.firstIndex(of: column)!
            var width = column.header.count
            for (row, rowTexts) in zip(rows, texts) where row.stats != nil || column == .mountPoint || column == .type {
                width = max(width, column == .bar && row.stats != nil ? options.barCells + 2 : length(rowTexts[position]))
            }
            widths[column] = width
        }
        var layout = Layout(columns: columns, widths: widths)
        guard let limit = options.columns else { return layout }
        shortenMountPoints(&layout, limit: limit, floor: firstMountPointLimit)
        for column in dropOrder where total(layout) > limit {
            layout.columns.removeAll { $0 == column }
        }
        shortenMountPoints(&layout, limit: limit, floor: lastMountPointLimit)
        return layout
    }

    static func total(_ layout: Layout) -> Int {
        layout.columns.reduce(0) { $0 + layout.widths[$1]! } + separator.count * max(layout.columns.count - 1, 0)
    }

    /// Narrows the mount point column by what the table is too wide, not below `floor`.
    static func shortenMountPoints(_ layout: inout Layout, limit: Int, floor: Int) {
        let excess = total(layout) - limit
        let width = layout.widths[.mountPoint]!
        guard excess > 0, width > floor else { return }
        layout.widths[.mountPoint] = max(floor, width - excess)
    }

    /// Columns a text takes: its bytes when it is ASCII (most cells), else its characters;
    /// counting characters of every cell was a tenth of `list`'s run (grapheme breaking).
    static func length(_ text: String) -> Int {
        text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8.count : text.count
    }

    /// "/media/u/USB STICK" in 10 columns: "/medi…TICK". The middle goes: both the start
    /// (where it is) and the end (which disk) say something.
    public static func ellipsized(_ text: String, width: Int) -> String {
        guard length(text) > width else { return text }
        guard width > 1 else { return String(repeating: "…", count: max(width, 0)) }
        let tail = (width - 1) / 2
        let head = width - 1 - tail
        return String(text.prefix(head)) + "…" + String(text.suffix(tail))
    }

    static func text(_ column: Column, _ row: ListRow, options: Options) -> String {
        let unit = options.unit
        switch column {
        case .mountPoint: return ControlCharacters.replaced(in: row.mountPoint)
        case .type: return ControlCharacters.replaced(in: row.fileSystemType)
        default: break
        }
        guard let stats = row.stats else { return "" }
        switch column {
        case .mountPoint, .type: return ""
        case .bar: return ProgressBar.render(stats.usedFraction, width: options.barCells, glyphs: options.glyphs)
        case .percent: return stats.usedPercent.map { "\($0)%" } ?? "-"
        case .used: return unit.format(stats.usedBytes)
        case .free: return unit.format(stats.freeBytes)
        case .size: return unit.format(stats.totalBytes)
        case .inodes: return row.inodePercent.map { "\($0)%" } ?? "-"
        case .readOnly: return stats.readOnly ? "ro" : ""
        case .fullIn:
            guard let estimate = row.timeToFull else { return "" }
            let text = estimate.description
            return text.hasPrefix("full in ") ? String(text.dropFirst("full in ".count)) : text
        }
    }

    enum Colour: String {
        case yellow = "\u{1B}[33m"
        case red = "\u{1B}[31m"
        static let reset = "\u{1B}[0m"
    }

    /// A row's cells; a row without numbers says why after its type, across the rest.
    static func cells(_ row: ListRow, texts: [String], layout: Layout) -> [Cell] {
        func text(_ column: Column) -> String { texts[Column.allCases.firstIndex(of: column)!] }
        guard row.stats != nil else {
            var cells = layout.columns.filter { $0 == .mountPoint || $0 == .type }.map { Cell(column: $0, text: text($0), colour: nil) }
            cells.append(Cell(column: nil, text: ControlCharacters.replaced(in: row.problem ?? "no numbers"), colour: .red))
            return cells
        }
        let colour: Colour? = switch row.severity {
        case .normal: nil
        case .warning: .yellow
        case .critical: .red
        }
        return layout.columns.map { column in
            Cell(column: column, text: text(column), colour: column == .bar || column == .percent ? colour : nil)
        }
    }

    /// Pads and joins the cells, cuts the line at the terminal's width, then colours it.
    /// Blanks are counted, not built: spaces are written only before visible text, so a
    /// line never ends in them.
    static func line(_ cells: [Cell], layout: Layout, options: Options) -> String {
        var budget = options.columns ?? Int.max
        var out = ""
        var pendingSpaces = 0
        for (index, cell) in cells.enumerated() {
            var text = cell.text
            var leading = 0, trailing = 0
            if let column = cell.column {
                let width = layout.widths[column]!
                if column == .mountPoint { text = ellipsized(text, width: width) }
                // A bar is as wide as its column (its glyphs are not ASCII: not counted).
                let padding = max(width - (column == .bar && !text.isEmpty ? width : length(text)), 0)
                if column.alignsRight { leading = padding } else { trailing = padding }
            }
            if index > 0 { pendingSpaces += separator.count }
            guard !text.isEmpty else {
                pendingSpaces += leading + trailing
                continue
            }
            let spaces = pendingSpaces + leading
            guard budget > spaces else { break }
            out += String(repeating: " ", count: spaces)
            budget -= spaces
            let count = cell.column == .bar ? layout.widths[.bar]! : length(text)
            let shown = count <= budget ? text : String(text.prefix(budget))
            budget -= min(count, budget)
            if let colour = cell.colour, options.colors { out += colour.rawValue + shown + Colour.reset } else { out += shown }
            pendingSpaces = trailing
            if budget <= 0 { break }
        }
        return out
    }
}
