/// A text with placeholders in braces, such as `{label}{bar} {percent}%` or
/// `{free:iec} free`: what a block, a status line or a details line shows
/// (usedspace.conf(5), TEMPLATES in usedspace(1)). Parsed once, when the setting is read,
/// so that a mistake is reported where it was written and never shown in a bar.
public struct Template: Equatable, Sendable {
    public enum Part: Equatable, Sendable {
        case literal(String)
        case placeholder(Placeholder)
    }

    public var parts: [Part]
    /// The text as written.
    public var source: String

    public init(parts: [Part], source: String) {
        self.parts = parts
        self.source = source
    }

    /// The longest template taken, in characters (a status bar shows a few dozen).
    public static let maximumLength = 1024

    public var hasPlaceholders: Bool {
        parts.contains { if case .placeholder = $0 { return true } else { return false } }
    }
}

/// `{field:modifier:modifier…}`
public struct Placeholder: Equatable, Sendable {
    public var field: TemplateField
    /// For sizes: how they are written; nil takes the `unit` setting.
    public var unit: SizeUnit?
    /// Digits after the point: percentages, and sizes in si or iec.
    public var precision: Int?
    /// Columns to pad to, with blanks on the left (`>N`) or on the right (`<N`).
    public var width: Int?
    public var alignLeft = false
    /// Cells of `{bar}`; nil takes the `bar-width` setting.
    public var cells: Int?

    public init(field: TemplateField) {
        self.field = field
    }
}

/// What a placeholder shows.
public enum TemplateField: String, CaseIterable, Sendable {
    case bar
    case percent
    case usedPercent = "used_percent"
    case used
    case free
    case total
    case reserved
    case inodes
    case inodesUsed = "inodes_used"
    case inodesFree = "inodes_free"
    case inodesTotal = "inodes_total"
    case timeToFull = "time_to_full"
    case path
    case mountpoint
    case fstype
    case label
    case ro
    case icon
    case error

    public var isSize: Bool { [.used, .free, .total, .reserved].contains(self) }

    public static var names: String { allCases.map { $0.rawValue }.joined(separator: ", ") }
}

/// How sizes are written: Foundation's ByteCountFormatter .file ("311.16 GB", the
/// default), as `df -H` ("312G", powers of 1000) or `df -h` ("290G", powers of 1024)
/// print them, or a plain number of bytes.
public enum SizeUnit: String, CaseIterable, Sendable {
    case file
    case si
    case iec
    case bytes

    public static var names: String { allCases.map { $0.rawValue }.joined(separator: ", ") }

    public func format(_ bytes: UInt64, precision: Int? = nil) -> String {
        switch self {
        case .file: return ByteCountFormat.file(bytes)
        case .si: return HumanSize.format(bytes, base: .decimal, fractionDigits: precision)
        case .iec: return HumanSize.format(bytes, base: .binary, fractionDigits: precision)
        case .bytes: return String(bytes)
        }
    }
}

/// A template that cannot be used, and the character where the problem is (0-based, in
/// characters of the template as written).
public struct TemplateError: Error, Equatable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    /// With the column counted from 1, as editors count it.
    public var description: String { "column \(offset + 1): \(message)" }
}
