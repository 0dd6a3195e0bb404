/// Byte counts as `df -h` (powers of 1024) and `df -H` (powers of 1000) print them: the
/// algorithm of gnulib's human.c with df's options (human_autoscale | human_SI, rounding
/// up, the default): the value is divided by the base while it is at least the base, one
/// decimal is kept below 10, and any remainder rounds the last digit *up*, so a user who
/// reads "17G" in df reads "17G" here. The unit letters are df's: K M G T P E (a lowercase
/// "k" for powers of 1000, as `df -H` writes kilo), no "B", no space.
///
/// Integer arithmetic only, like human.c for exact inputs: no double rounding can land on
/// the other side of a digit.
public enum HumanSize {
    public enum Base: UInt64, Sendable {
        case binary = 1024
        case decimal = 1000
    }

    private static let letters: [Character] = ["K", "M", "G", "T", "P", "E"]

    /// `fractionDigits` nil is df's own choice (one decimal below 10, none from 10 up);
    /// a number asks for that many decimals at every size, still rounded up.
    public static func format(_ bytes: UInt64, base: Base, fractionDigits: Int? = nil) -> String {
        let radix = base.rawValue
        var exponent = 0
        var divisor: UInt64 = 1
        // The largest power of the base not above the value (df never scales below it).
        while exponent < letters.count, bytes / divisor >= radix {
            divisor *= radix
            exponent += 1
        }
        let digits = fractionDigits ?? (bytes / divisor < 10 && exponent > 0 ? 1 : 0)
        var text = roundedUp(bytes, divisor: divisor, fractionDigits: exponent == 0 ? 0 : digits)
        // 9.95K rounds up to 10, which df writes without a decimal: "10K".
        if fractionDigits == nil, digits == 1, integerPart(text) >= 10 {
            text = roundedUp(bytes, divisor: divisor, fractionDigits: 0)
        }
        // Rounding up can reach the next unit: 1023.95 KiB is "1.0M" in df, not "1024K".
        if exponent < letters.count, exponent > 0 || fractionDigits == nil, integerPart(text) >= radix {
            divisor *= radix
            exponent += 1
            let again = fractionDigits ?? 1
            text = roundedUp(bytes, divisor: divisor, fractionDigits: again)
        }
        guard exponent > 0 else { return text }
        let letter = base == .decimal && exponent == 1 ? "k" : letters[exponent - 1]
        return text + String(letter)
    }

    /// ⌈bytes / divisor⌉ with `fractionDigits` decimals, as text.
    private static func roundedUp(_ bytes: UInt64, divisor: UInt64, fractionDigits: Int) -> String {
        var scale: UInt128 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let numerator = UInt128(bytes) * scale
        let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: UInt128(divisor))
        let value = remainder == 0 ? quotient : quotient + 1
        guard fractionDigits > 0 else { return String(value) }
        let whole = value / scale
        var fraction = String(value % scale)
        while fraction.count < fractionDigits { fraction = "0" + fraction }
        return "\(whole).\(fraction)"
    }

    private static func integerPart(_ text: String) -> UInt64 {
        UInt64(text.prefix { $0 != "." }) ?? 0
    }
}
