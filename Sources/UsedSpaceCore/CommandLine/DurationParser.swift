/// Durations as people write them in options and the config file: "5", "5s", "1.5s",
/// "500ms", "2min", "1h". A bare number is seconds.
public enum DurationParser {
    /// Parses into microseconds, or nil (with no partial guesses) when the text is not a duration.
    public static func microseconds(_ text: String) -> UInt64? {
        let units: [(suffix: String, microseconds: UInt64)] = [
            ("ms", 1000), ("min", 60_000_000), ("s", 1_000_000), ("h", 3_600_000_000),
        ]
        var number = Substring(text)
        var scale: UInt64 = 1_000_000
        for unit in units where number.hasSuffix(unit.suffix) {
            number = number.dropLast(unit.suffix.count)
            scale = unit.microseconds
            break
        }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty || parts.count == 2,
              (parts.first! + (parts.count == 2 ? parts[1] : "")).allSatisfy({ $0.isASCII && $0.isNumber }),
              parts.count == 1 || !parts[1].isEmpty, whole.count <= 9
        else { return nil }
        var value = UInt64(whole.isEmpty ? "0" : whole)! * scale
        if parts.count == 2 {
            var fractionScale = scale
            for digit in parts[1].utf8 {
                fractionScale /= 10
                value += UInt64(digit - UInt8(ascii: "0")) * fractionScale
            }
        }
        return value
    }

    /// "5 s", "1.5 s", "250 ms", "10 min", "24 h": for messages and status lines.
    public static func describe(microseconds: UInt64) -> String {
        if microseconds >= 3_600_000_000 && microseconds % 3_600_000_000 == 0 { return "\(microseconds / 3_600_000_000) h" }
        if microseconds >= 60_000_000 && microseconds % 60_000_000 == 0 { return "\(microseconds / 60_000_000) min" }
        if microseconds % 1_000_000 == 0 { return "\(microseconds / 1_000_000) s" }
        if microseconds < 1_000_000 && microseconds % 1000 == 0 { return "\(microseconds / 1000) ms" }
        let tenths = (microseconds + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
