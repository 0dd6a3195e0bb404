/// A non-negative rational number with 64-bit parts, compared and scaled exactly.
///
/// Used rates are compared against the publish threshold exactly: with doubles,
/// |0.3501 − 0.35| comes out just below 0.0001, so a change of exactly the threshold
/// would or would not publish depending on rounding.
public struct Fraction: Equatable, Hashable, Sendable {
    public var numerator: UInt64
    public var denominator: UInt64

    public init(numerator: UInt64, denominator: UInt64) {
        precondition(denominator > 0, "a fraction needs a non-zero denominator")
        self.numerator = numerator
        self.denominator = denominator
    }

    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// ⌈self · factor⌉
    public func ceilingOfScaled(by factor: UInt64) -> UInt128 {
        let scaled = UInt128(numerator) * UInt128(factor)
        let (quotient, remainder) = scaled.quotientAndRemainder(dividingBy: UInt128(denominator))
        return remainder == 0 ? quotient : quotient + 1
    }

    /// ⌊self · factor⌋
    public func floorOfScaled(by factor: UInt64) -> UInt128 {
        UInt128(numerator) * UInt128(factor) / UInt128(denominator)
    }

    /// self · factor rounded to the nearest integer, halves away from zero.
    public func roundedScaled(by factor: UInt64) -> UInt128 {
        let twice = UInt128(numerator) * UInt128(factor) * 2 + UInt128(denominator)
        return twice / (UInt128(denominator) * 2)
    }

    /// |self − other| as a fraction with 128-bit parts: (difference numerator, common denominator).
    func distance(to other: Fraction) -> (numerator: UInt128, denominator: UInt128) {
        let left = UInt128(numerator) * UInt128(other.denominator)
        let right = UInt128(other.numerator) * UInt128(denominator)
        return (left >= right ? left - right : right - left, UInt128(denominator) * UInt128(other.denominator))
    }

    /// Whether |self − other| ≥ threshold, computed without rounding.
    public func differs(from other: Fraction, byAtLeast threshold: Fraction) -> Bool {
        let (distance, common) = distance(to: other)
        // distance/common ≥ t.n/t.d  ⇔  distance·t.d ≥ t.n·common; both sides fit in 256 bits.
        let left = distance.multipliedFullWidth(by: UInt128(threshold.denominator))
        let right = UInt128(threshold.numerator).multipliedFullWidth(by: common)
        return (left.high, left.low) >= (right.high, right.low)
    }
}
