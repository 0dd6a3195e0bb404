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
    /// (Read byte by byte: a bar formats three sizes at every publish.)
    init(_ value: Double) {
        precondition(value.isFinite && value >= 0)
        var mantissa: [UInt8] = []
        mantissa.reserveCapacity(24)
        var pointPosition: Int?
        var exponentPart = 0
        var exponentNegative = false
        var inExponent = false
        for character in value.description.utf8 {
            switch character {
            case UInt8(ascii: "e"), UInt8(ascii: "E"): inExponent = true
            case UInt8(ascii: "-") where inExponent: exponentNegative = true
            case UInt8(ascii: "+") where inExponent: break
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if inExponent {
                    exponentPart = exponentPart * 10 + Int(character - UInt8(ascii: "0"))
                } else {
                    mantissa.append(character - UInt8(ascii: "0"))
                }
            case UInt8(ascii: "."): pointPosition = mantissa.count
            default: break
            }
        }
        if exponentNegative { exponentPart = -exponentPart }
        var exponent = (pointPosition ?? mantissa.count) + exponentPart
        let leadingZeros = mantissa.firstIndex { $0 != 0 } ?? mantissa.count
        mantissa.removeFirst(leadingZeros)
        exponent -= leadingZeros
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
        var text: [UInt8] = []
        text.reserveCapacity(digits.count + 8)
        let integerCount = max(exponent, 1)
        for position in 0..<integerCount {
            if position > 0 && (integerCount - position) % 3 == 0 { text.append(UInt8(ascii: ",")) }
            let digit = position < exponent && position < digits.count ? digits[position] : 0
            text.append(UInt8(ascii: "0") + digit)
        }
        let fractionStart = max(exponent, 0)
        if exponent < 0 || digits.count > fractionStart {
            text.append(UInt8(ascii: "."))
            if exponent < 0 { text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -exponent)) }
            for digit in digits[min(fractionStart, digits.count)...] { text.append(UInt8(ascii: "0") + digit) }
        }
        return String(decoding: text, as: UTF8.self)
    }

    private init(digits: [UInt8], exponent: Int) {
        self.digits = digits
        self.exponent = exponent
    }
}
