/// What a template's placeholders are filled from: one snapshot and how its block is set up.
public struct TemplateContext: Sendable {
    public var snapshot: Snapshot
    public var label: String
    /// The unit of sizes whose placeholder names none.
    public var unit: SizeUnit
    /// Cells of `{bar}` without a number of its own.
    public var barCells: Int
    public var glyphs: BarGlyphs
    /// The icon ramp: the first for an empty filesystem, the last for a full one.
    public var icons: [String]

    public init(snapshot: Snapshot, label: String = "", unit: SizeUnit = .file, barCells: Int = ProgressBar.defaultWidth,
                glyphs: BarGlyphs = .blocks, icons: [String] = []) {
        self.snapshot = snapshot
        self.label = label
        self.unit = unit
        self.barCells = barCells
        self.glyphs = glyphs
        self.icons = icons
    }
}

extension Template {
    /// The text, and whether any placeholder had something to show (a details line whose
    /// placeholders are all empty, such as a trend that is not known, is left out).
    public func render(_ context: TemplateContext) -> (text: String, showsAnything: Bool) {
        var text = ""
        var showsAnything = false
        for part in parts {
            switch part {
            case .literal(let literal):
                text += literal
            case .placeholder(let placeholder):
                let value = Self.value(placeholder, context)
                showsAnything = showsAnything || !value.isEmpty
                text += Self.padded(value, placeholder)
            }
        }
        return (text, showsAnything)
    }

    public func text(_ context: TemplateContext) -> String { render(context).text }

    static func padded(_ value: String, _ placeholder: Placeholder) -> String {
        guard let width = placeholder.width, value.count < width else { return value }
        let blanks = String(repeating: " ", count: width - value.count)
        return placeholder.alignLeft ? value + blanks : blanks + value
    }

    static func value(_ placeholder: Placeholder, _ context: TemplateContext) -> String {
        let snapshot = context.snapshot
        let stats = snapshot.stats
        // The bar and the percentage follow a quota that binds; the byte counts stay df's.
        let fraction = snapshot.limitingStats?.usedFraction
        func size(_ bytes: UInt64?) -> String {
            guard let bytes else { return "" }
            return (placeholder.unit ?? context.unit).format(bytes, precision: placeholder.precision)
        }
        func count(_ value: UInt64?) -> String { value.map(TextRenderer.grouped) ?? "" }
        let unknownMount = snapshot.mountUnknown ? Snapshot.unknownMountText : ""
        switch placeholder.field {
        case .bar:
            guard let fraction else { return "" }
            let cells = placeholder.cells ?? context.barCells
            return cells > 0 ? ProgressBar.render(fraction, width: cells, glyphs: context.glyphs) : ""
        case .percent:
            return fraction.map { PercentText.decimals($0, digits: placeholder.precision ?? 1) } ?? ""
        case .usedPercent:
            return stats?.usedPercent.map(String.init) ?? ""
        case .used: return size(stats?.usedBytes)
        case .free: return size(stats?.freeBytes)
        case .total: return size(stats?.totalBytes)
        case .reserved: return size(stats?.reservedBytes)
        case .inodes: return stats.map(TextRenderer.inodes) ?? ""
        case .inodesUsed: return count(stats?.usedInodes)
        case .inodesFree: return count(stats.flatMap { $0.totalInodes > 0 ? $0.freeInodes : nil })
        case .inodesTotal: return count(stats.flatMap { $0.totalInodes > 0 ? $0.totalInodes : nil })
        case .timeToFull: return snapshot.timeToFull?.description ?? ""
        case .path: return ControlCharacters.replaced(in: snapshot.path)
        case .mountpoint: return ControlCharacters.replaced(in: snapshot.mountPoint ?? unknownMount)
        case .fstype: return ControlCharacters.replaced(in: snapshot.fileSystemType ?? unknownMount)
        case .label: return ControlCharacters.replaced(in: context.label)
        case .ro: return stats?.readOnly == true ? "ro" : ""
        case .icon:
            guard let fraction, !context.icons.isEmpty else { return "" }
            let index = Int(fraction.floorOfScaled(by: UInt64(context.icons.count)))
            return context.icons[min(index, context.icons.count - 1)]
        case .error:
            return snapshot.error.map(ControlCharacters.replaced) ?? ""
        }
    }
}
