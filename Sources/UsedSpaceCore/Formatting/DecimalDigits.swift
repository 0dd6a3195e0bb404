/// A non-negative decimal number as digits, for rounding the way ICU's number formatter
/// (and so Foundation's `NumberFormatter`) rounds a `Double`: from its shortest
/// round-trip decimal form, half to even. That is why 2.675 (stored as 2.67499…) is
/// shown as "2.68", and 1.005 as "1".
struct DecimalDigits: Equatable {
    /// Significant digits, most significant first, without leading zeros (empty for zero).
    var digits: [UInt8]
    /// The value is 0.d₁d₂d₃… × 10^exponent.
    var exponent: Int

    /// From Swift's shortest round-trip description of a finite, non-negative double.
    init(_ value: Double) {
        precondition(value.isFinite && value >= 0)
        var mantissa: [UInt8] = []
        var pointPosition: Int?
        var exponentPart = 0
        var text = Substring(value.description)
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponentPart = Int(text[text.index(after: e)...]) ?? 0
            text = text[..<e]
        }
        for character in text.utf8 {
            if character == UInt8(ascii: ".") {
                pointPosition = mantissa.count
            } else {
                mantissa.append(character - UInt8(ascii: "0"))
            }
        }
        var exponent = (pointPosition ?? mantissa.count) + exponentPart
        while let first = mantissa.first, first == 0 {
            mantissa.removeFirst()
            exponent -= 1
        }
        while let last = mantissa.last, last == 0 { mantissa.removeLast() }
        self.digits = mantissa
        self.exponent = mantissa.isEmpty ? 0 : exponent
    }

    /// Rounds half to even, keeping at most `fractionDigits` digits after the point.
    func rounded(fractionDigits: Int) -> DecimalDigits {
        let keep = exponent + fractionDigits
        guard keep < digits.count else { return self }
        guard keep >= 0 else { return DecimalDigits(digits: [], exponent: 0) }
        var kept = Array(digits[0..<keep])
        let rest = digits[keep...]
        let first = rest.first ?? 0
        let beyondHalf = first > 5 || (first == 5 && rest.dropFirst().contains { $0 != 0 })
        let exactlyHalf = first == 5 && !beyondHalf
        let lastKeptIsOdd = (kept.last ?? 0) % 2 == 1
        var newExponent = exponent
        if beyondHalf || (exactlyHalf && lastKeptIsOdd) {
            var index = kept.count - 1
            while index >= 0 && kept[index] == 9 {
                kept[index] = 0
                index -= 1
            }
            if index >= 0 {
                kept[index] += 1
            } else {
                kept.insert(1, at: 0)
                newExponent += 1
            }
        }
        while let last = kept.last, last == 0 { kept.removeLast() }
        return DecimalDigits(digits: kept, exponent: kept.isEmpty ? 0 : newExponent)
    }

    /// "1,000" / "12.35": groups of three with "," and "." before the fraction, as the
    /// en_US and POSIX locales write numbers.
    var groupedText: String {
        var integerDigits: [UInt8] = []
        var fractionDigits: [UInt8] = []
        for position in 0..<max(exponent, 0) {
            integerDigits.append(position < digits.count ? digits[position] : 0)
        }
        if integerDigits.isEmpty { integerDigits = [0] }
        if exponent < 0 { fractionDigits = Array(repeating: 0, count: -exponent) }
        if digits.count > max(exponent, 0) { fractionDigits += digits[max(exponent, 0)...] }
        var text = ""
        for (index, digit) in integerDigits.enumerated() {
            if index > 0 && (integerDigits.count - index) % 3 == 0 { text += "," }
            text.unicodeScalars.append(Unicode.Scalar(UInt8(ascii: "0") + digit))
        }
        if !fractionDigits.isEmpty {
            text += "."
            for digit in fractionDigits { text.unicodeScalars.append(Unicode.Scalar(UInt8(ascii: "0") + digit)) }
        }
        return text
    }

    private init(digits: [UInt8], exponent: Int) {
        self.digits = digits
        self.exponent = exponent
    }
}
