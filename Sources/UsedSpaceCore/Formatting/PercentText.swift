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

    /// With `digits` decimals (0 to 6), rounded half up; a filesystem that is not
    /// completely full never shows 100 (it shows 99.9…).
    public static func decimals(_ fraction: Fraction, digits: Int) -> String {
        var scale: UInt64 = 100
        for _ in 0..<digits { scale *= 10 }
        var scaled = fraction.roundedScaled(by: scale)
        if scaled == UInt128(scale) && fraction.numerator != fraction.denominator { scaled -= 1 }
        guard digits > 0 else { return String(scaled) }
        var unit: UInt128 = 1
        for _ in 0..<digits { unit *= 10 }
        var fractionText = String(scaled % unit)
        while fractionText.count < digits { fractionText = "0" + fractionText }
        return "\(scaled / unit).\(fractionText)"
    }
}
