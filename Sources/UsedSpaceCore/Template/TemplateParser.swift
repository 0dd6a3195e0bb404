/// Reads a template: literal text, `{field}` and `{field:modifier…}`; `{{` and `}}` are
/// literal braces. Every mistake names the character it is at: an unknown field (never
/// shown raw), a modifier that does not apply, a brace left open.
extension Template {
    /// Works on the UTF-8 bytes (braces and colons are ASCII, so no character is split):
    /// a `status` with a template starts as fast as one without. Offsets in errors are
    /// counted in characters.
    public static func parse(_ text: String) throws(TemplateError) -> Template {
        let bytes = Array(text.utf8)
        func characterOffset(_ byte: Int) -> Int { String(decoding: bytes[..<byte], as: UTF8.self).count }
        guard bytes.count <= maximumLength || text.count <= maximumLength else {
            throw TemplateError(offset: maximumLength, message: "a template is at most \(maximumLength) characters")
        }
        if let control = text.unicodeScalars.firstIndex(where: { $0 != "\t" && ControlCharacters.isControl($0) }) {
            let offset = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: control)
            throw TemplateError(offset: String(text.unicodeScalars.prefix(offset)).count,
                                message: "control characters are not allowed in a template")
        }
        let open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        var parts: [Part] = []
        var literal: [UInt8] = []
        var index = 0
        func flush() {
            if !literal.isEmpty { parts.append(.literal(String(decoding: literal, as: UTF8.self))) }
            literal = []
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == open && index + 1 < bytes.count && bytes[index + 1] == open {
                literal.append(open)
                index += 2
            } else if byte == close && index + 1 < bytes.count && bytes[index + 1] == close {
                literal.append(close)
                index += 2
            } else if byte == close {
                throw TemplateError(offset: characterOffset(index), message: "'}' closes no placeholder; write '}}' for a brace")
            } else if byte == open {
                guard let end = bytes[index...].firstIndex(of: close) else {
                    throw TemplateError(offset: characterOffset(index), message: "'{' opens a placeholder that is not closed; write '{{' for a brace")
                }
                if let nested = bytes[(index + 1)..<end].firstIndex(of: open) {
                    throw TemplateError(offset: characterOffset(nested),
                                        message: "'{' inside a placeholder; close the one at column \(characterOffset(index) + 1) first")
                }
                flush()
                parts.append(.placeholder(try placeholder(bytes, from: index + 1, to: end, characterOffset: characterOffset)))
                index = end + 1
            } else {
                literal.append(byte)
                index += 1
            }
        }
        flush()
        return Template(parts: parts, source: text)
    }

    /// The inside of `{…}`: bytes[start..<end].
    private static func placeholder(_ bytes: [UInt8], from start: Int, to end: Int,
                                    characterOffset: (Int) -> Int) throws(TemplateError) -> Placeholder {
        var pieces: [(text: String, offset: Int)] = []
        var pieceStart = start
        for index in start...end where index == end || bytes[index] == UInt8(ascii: ":") {
            pieces.append((String(decoding: bytes[pieceStart..<index], as: UTF8.self), pieceStart))
            pieceStart = index + 1
        }
        let name = pieces[0]
        guard !name.text.isEmpty else {
            throw TemplateError(offset: characterOffset(name.offset), message: "empty placeholder; the placeholders are \(TemplateField.names)")
        }
        guard let field = TemplateField(rawValue: name.text) else {
            let hint = closest(to: name.text).map { " (did you mean {\($0)}?)" } ?? ""
            let shown = name.text.count > 64 ? String(name.text.prefix(64)) + "…" : name.text
            throw TemplateError(offset: characterOffset(name.offset),
                                message: "unknown placeholder {\(ControlCharacters.replaced(in: shown))}\(hint); the placeholders are \(TemplateField.names)")
        }
        var result = Placeholder(field: field)
        for (text, offset) in pieces.dropFirst() {
            try apply(text, at: characterOffset(offset), to: &result)
        }
        if result.precision != nil, field.isSize, result.unit != .si && result.unit != .iec {
            let unit = result.unit.map { ", not \($0.rawValue)" } ?? ""
            throw TemplateError(offset: characterOffset(name.offset),
                                message: "a precision applies to sizes in si or iec\(unit): write the unit too, e.g. {\(field.rawValue):iec:.1}")
        }
        return result
    }

    private static func apply(_ modifier: String, at offset: Int, to placeholder: inout Placeholder) throws(TemplateError) {
        let field = placeholder.field
        var shown: String { ControlCharacters.replaced(in: modifier) }
        func number(_ digits: Substring, in range: ClosedRange<Int>, what: String) throws(TemplateError) -> Int {
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits), range.contains(value) else {
                throw TemplateError(offset: offset, message: "'\(shown)': \(what) is a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        if let unit = SizeUnit(rawValue: modifier) {
            guard field.isSize else {
                throw TemplateError(offset: offset, message: "the unit '\(modifier)' applies to used, free, total and reserved, not {\(field.rawValue)}")
            }
            guard placeholder.unit == nil else { throw TemplateError(offset: offset, message: "{\(field.rawValue)} has a unit already") }
            placeholder.unit = unit
        } else if modifier.hasPrefix(".") {
            guard field == .percent || field.isSize else {
                throw TemplateError(offset: offset, message: "a precision ('\(shown)') applies to percent and to sizes, not {\(field.rawValue)}")
            }
            placeholder.precision = try number(modifier.dropFirst(), in: field == .percent ? 0...6 : 0...3, what: "the precision")
        } else if modifier.hasPrefix(">") || modifier.hasPrefix("<") {
            placeholder.width = try number(modifier.dropFirst(), in: 1...200, what: "the width")
            placeholder.alignLeft = modifier.hasPrefix("<")
        } else if let first = modifier.first, first.isASCII, first.isNumber {
            guard field == .bar else {
                throw TemplateError(offset: offset, message: "a number of cells ('\(shown)') applies to {bar}; pad with '>\(shown)' or '<\(shown)'")
            }
            placeholder.cells = try number(Substring(modifier), in: 0...100, what: "the number of cells")
        } else {
            let units = field.isSize ? "a unit (\(SizeUnit.names)), " : ""
            throw TemplateError(offset: offset, message: "'\(shown)' is not a modifier; the modifiers are \(units)a precision such as .1, a width such as >6 or <6, and for {bar} its cells such as 20")
        }
    }

    /// The field a misspelt name most likely meant: at most two edits away.
    static func closest(to name: String) -> String? {
        let candidates = TemplateField.allCases.map { ($0.rawValue, editDistance(name.lowercased(), $0.rawValue)) }
        guard let best = candidates.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.prefix(64)), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
