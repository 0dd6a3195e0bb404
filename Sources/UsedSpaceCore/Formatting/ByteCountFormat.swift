/// Byte counts written as Foundation's `ByteCountFormatter` writes them with
/// `countStyle = .file` and its other settings at their defaults (as the widget used it):
/// decimal units (1 KB = 1000 bytes); "Zero KB", "1 byte", "999 bytes"; no fraction
/// digits for bytes and KB, at most one for MB and at most two from GB up, rounded half to
/// even and without trailing zeros; "1,000 KB" at the top of a unit's range.
///
/// It lives here so the binaries need not load Foundation (about 20 MB of RSS and eight
/// times the start-up). Parity with Foundation is a test (ByteCountFormatParityTests).
/// Deliberate deviation: numbers are always written as in English ("," groups, "." point),
/// whatever the locale, so that status lines and scripts read the same everywhere.
public enum ByteCountFormat {
    private static let units: [(name: String, fractionDigits: Int)] = [
        ("KB", 0), ("MB", 1), ("GB", 2), ("TB", 2), ("PB", 2), ("EB", 2),
    ]

    /// Formats a byte count. Counts above `Int64.max` (8 EiB), which Foundation cannot take,
    /// are formatted as `Int64.max`.
    public static func file(_ byteCount: UInt64) -> String {
        let count = min(byteCount, UInt64(Int64.max))
        if count == 0 { return "Zero KB" }
        if count == 1 { return "1 byte" }
        if count < 1000 { return "\(count) bytes" }
        // Foundation works in Double and so do we, so that rounding lands on the same side.
        let bytes = Double(count)
        var unitSize = 1000.0
        var unitIndex = 0
        while unitIndex < units.count - 1 && bytes >= unitSize * 1000 {
            unitSize *= 1000
            unitIndex += 1
        }
        let unit = units[unitIndex]
        let value = DecimalDigits(bytes / unitSize).rounded(fractionDigits: unit.fractionDigits)
        return "\(value.groupedText) \(unit.name)"
    }
}
