/// Percentages as status lines show them.
public enum PercentText {
    /// One decimal, rounded half up, right-aligned in five columns: " 35.2", "100.0".
    /// A filesystem that is not completely full never shows "100.0".
    public static func oneDecimal(_ fraction: Fraction, padded: Bool = true) -> String {
        var permille = fraction.roundedScaled(by: 1000)
        if permille == 1000 && fraction.numerator != fraction.denominator { permille = 999 }
        let text = "\(permille / 10).\(permille % 10)"
        guard padded, text.count < 5 else { return text }
        return String(repeating: " ", count: 5 - text.count) + text
    }

    /// The fraction as a percentage with as many decimals as it has (at most 12), for
    /// settings read back to the user: 1/10000 is "0.01", 1/8 is "12.5"; a fraction that
    /// does not end within 12 decimals is rounded there.
    public static func exact(_ fraction: Fraction) -> String {
        let scale: UInt64 = 1_000_000_000_000
        let hundredths = UInt128(fraction.numerator) * 100 * UInt128(scale)
        let (quotient, remainder) = hundredths.quotientAndRemainder(dividingBy: UInt128(fraction.denominator))
        let rounded = quotient + (remainder * 2 >= UInt128(fraction.denominator) ? 1 : 0)
        let whole = rounded / UInt128(scale)
        var decimals = String(rounded % UInt128(scale))
        decimals = String(repeating: "0", count: 12 - decimals.count) + decimals
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return decimals.isEmpty ? "\(whole)" : "\(whole).\(decimals)"
    }
}
