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
}
