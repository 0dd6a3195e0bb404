/// Reads a used-rate threshold written as a decimal ("0.0001", "1e-4" is not accepted) or a
/// percentage ("0.01%") into an exact fraction.
public enum ThresholdParser {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notADecimal(String)
        case outOfRange(String)
        case tooPrecise(String)

        public var description: String {
            switch self {
            case .notADecimal(let text):
                return "'\(text)' is not a decimal rate such as 0.0001 or a percentage such as 0.01%"
            case .outOfRange(let text):
                return "'\(text)' is out of range: a threshold is a rate from 0 (publish every sample) to 1 (100%)"
            case .tooPrecise(let text):
                return "'\(text)' has more than 12 decimal places"
            }
        }
    }

    public static func parse(_ text: String) throws(Failure) -> Fraction {
        var body = Substring(text)
        var denominator: UInt64 = 1
        if body.hasSuffix("%") {
            body = body.dropLast()
            denominator = 100
        }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty),
              whole.allSatisfy({ $0.isASCII && $0.isNumber }), fraction.allSatisfy({ $0.isASCII && $0.isNumber }),
              !(parts.count > 1 && fraction.isEmpty)
        else { throw .notADecimal(text) }
        guard fraction.count <= 12, whole.count <= 3 else {
            throw whole.count > 3 ? .outOfRange(text) : .tooPrecise(text)
        }
        var numerator: UInt64 = 0
        for digit in Array(whole.utf8) + Array(fraction.utf8) { numerator = numerator * 10 + UInt64(digit - UInt8(ascii: "0")) }
        for _ in 0..<fraction.count { denominator *= 10 }
        guard numerator <= denominator else { throw .outOfRange(text) }
        return Fraction(numerator: numerator, denominator: denominator)
    }
}
