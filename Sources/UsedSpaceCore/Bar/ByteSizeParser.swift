/// Sizes as people write them: "5GB", "5 GB", "1.5TB", "500M", "2GiB", "1048576".
/// Decimal units (KB = 1000, as ByteCountFormatter .file shows them) and binary ones
/// (KiB = 1024); a bare number is bytes.
public enum ByteSizeParser {
    /// A size read back as a person would have written it: the largest unit that divides it
    /// exactly ("1 GiB", "5 GB", "1536 MiB"), or bytes.
    public static func describe(_ bytes: UInt64) -> String {
        let units: [(name: String, factor: UInt64)] = [
            ("PiB", 1 << 50), ("PB", 1_000_000_000_000_000), ("TiB", 1 << 40), ("TB", 1_000_000_000_000),
            ("GiB", 1 << 30), ("GB", 1_000_000_000), ("MiB", 1 << 20), ("MB", 1_000_000), ("KiB", 1 << 10), ("KB", 1_000),
        ]
        guard bytes > 0, let unit = units.first(where: { bytes % $0.factor == 0 }) else { return "\(bytes) bytes" }
        return "\(bytes / unit.factor) \(unit.name)"
    }

    public static func parse(_ text: String) -> UInt64? {
        var body = Substring(text).filter { $0 != " " }[...]
        let units: [(suffix: String, factor: UInt64)] = [
            ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40), ("PiB", 1 << 50),
            ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000), ("PB", 1_000_000_000_000_000),
            ("K", 1_000), ("M", 1_000_000), ("G", 1_000_000_000), ("T", 1_000_000_000_000), ("P", 1_000_000_000_000_000),
            ("B", 1),
        ]
        var factor: UInt64 = 1
        // Longest suffixes first, so "GiB" is not read as "B".
        for unit in units where body.uppercased().hasSuffix(unit.suffix.uppercased()) {
            body = body.dropLast(unit.suffix.count)
            factor = unit.factor
            break
        }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 15,
              whole.allSatisfy({ $0.isASCII && $0.isNumber }),
              parts.count == 1 || (!parts[1].isEmpty && parts[1].count <= 6 && parts[1].allSatisfy({ $0.isASCII && $0.isNumber }))
        else { return nil }
        let (wholeBytes, overflow) = UInt64(whole)!.multipliedReportingOverflow(by: factor)
        guard !overflow else { return nil }
        var bytes = wholeBytes
        if parts.count == 2 {
            var scale = factor
            for digit in parts[1].utf8 {
                scale /= 10
                // "18446.8PB" passes the multiplication above and overflows here.
                let (sum, overflow) = bytes.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")) * scale)
                guard !overflow else { return nil }
                bytes = sum
            }
        }
        return bytes
    }
}
