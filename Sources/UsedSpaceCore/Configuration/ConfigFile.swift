/// The configuration file's syntax (usedspace.conf(5)): sections in brackets, `key = value`
/// lines, `#` comments on lines of their own. A key may repeat where it is a list (`path`).
/// Values are the rest of the line with surrounding blanks removed; double quotes keep
/// blanks and allow `\"` and `\\`. A section header may name what it is about after its
/// name: `[filesystem /data]`, `[filesystem "/my disk"]`.
public struct ConfigFile: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var section: String
        public var key: String
        public var value: String
        public var line: Int
        /// What the section header names after the section's name (`/data`), if anything.
        public var sectionArgument: String? = nil
        /// The line of the section header: entries of one section share it.
        public var sectionLine: Int = 0
        /// The column (from 1) of the value's first character on its line.
        public var valueColumn: Int = 0
        /// Offsets in the value of characters written with an escape (two columns each).
        public var escapedOffsets: [Int] = []

        /// The column on the line of the value's character at `offset`, for messages that
        /// point at it.
        public func column(ofValueOffset offset: Int) -> Int {
            valueColumn + offset + escapedOffsets.filter { $0 < offset }.count
        }
    }

    public var entries: [Entry]

    public static let maximumSize = 64 << 10

    /// How long a program waits for the configuration file (and the daemon for its other
    /// files) where its filesystem may hang, before it goes on with the defaults: a home on
    /// a dead network mount must hold up neither a bar nor the daemon's first answer. The
    /// file still applies once it arrives (`watch`, the daemon); a local file is read at once.
    public static let answerDeadlineMicroseconds: UInt64 = 250_000

    public static func parse(_ text: String) throws(ConfigError) -> ConfigFile {
        let (file, errors) = parseAll(text)
        if let first = errors.first { throw first }
        return file
    }

    /// Every line's syntax checked: the entries that parse, and an error for each that does
    /// not (for `usedspace config check`, which reports them all).
    public static func parseAll(_ text: String) -> (file: ConfigFile, errors: [ConfigError]) {
        guard text.utf8.count <= maximumSize else {
            return (ConfigFile(entries: []), [ConfigError(line: 0, message: "the file is larger than \(maximumSize / 1024) KiB; is it really the configuration?")])
        }
        var entries: [Entry] = []
        var errors: [ConfigError] = []
        var section = Section()
        var number = 0
        // "\r\n" is a single Character: split on both, or a CRLF file is one long line.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            do {
                if let entry = try parseLine(rawLine, number: number, section: &section) { entries.append(entry) }
            } catch {
                errors.append(error)
            }
        }
        return (ConfigFile(entries: entries), errors)
    }

    struct Section {
        var name = ""
        var argument: String?
        var line = 0
    }

    private static func parseLine(_ rawLine: Substring, number: Int, section: inout Section) throws(ConfigError) -> Entry? {
        do {
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let untrimmed = line
            line = trimmed(line)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { return nil }
            if line.contains(where: { ControlCharacters.isControl($0.unicodeScalars.first!) && $0 != "\t" }) {
                throw ConfigError(line: number, message: "control characters are not allowed")
            }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw ConfigError(line: number, message: "a section header is a name in brackets, like [daemon]")
                }
                let inside = trimmed(line.dropFirst().dropLast())
                let nameEnd = inside.firstIndex(where: { $0 == " " || $0 == "\t" }) ?? inside.endIndex
                let name = inside[..<nameEnd].lowercased()
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "-" }) else {
                    throw ConfigError(line: number, message: "'\(ControlCharacters.replaced(in: name))' is not a section name")
                }
                let rest = trimmed(inside[nameEnd...])
                section = Section(name: name, argument: rest.isEmpty ? nil : try unquoted(rest, line: number).text, line: number)
                return nil
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError(line: number, message: "expected 'key = value', a [section] or a # comment")
            }
            let key = trimmed(line[..<equals]).lowercased()
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw ConfigError(line: number, message: "'\(ControlCharacters.replaced(in: String(key)))' is not a key name")
            }
            guard !section.name.isEmpty else {
                throw ConfigError(line: number, message: "'\(key)' comes before any [section]")
            }
            let rawValue = trimmed(line[line.index(after: equals)...])
            let value = try unquoted(rawValue, line: number)
            let column = untrimmed.distance(from: untrimmed.startIndex, to: rawValue.startIndex) + 1 + (rawValue.hasPrefix("\"") ? 1 : 0)
            return Entry(section: section.name, key: String(key), value: value.text, line: number, sectionArgument: section.argument,
                         sectionLine: section.line, valueColumn: column, escapedOffsets: value.escapedOffsets)
        }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }

    private static func unquoted(_ value: Substring, line: Int) throws(ConfigError) -> (text: String, escapedOffsets: [Int]) {
        guard value.hasPrefix("\"") else { return (String(value), []) }
        var out = ""
        var offsets: [Int] = []
        var escaped = false
        var closed = false
        for character in value.dropFirst() {
            if closed { throw ConfigError(line: line, message: "text after the closing quote") }
            if escaped {
                guard character == "\"" || character == "\\" else {
                    throw ConfigError(line: line, message: "only \\\" and \\\\ are escapes inside quotes")
                }
                offsets.append(out.count)
                out.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                closed = true
            } else {
                out.append(character)
            }
        }
        guard closed else { throw ConfigError(line: line, message: "the quoted value has no closing quote") }
        return (out, offsets)
    }
}

/// A problem in the configuration file, with the line it is on (0 for the file as a whole).
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String
    /// The character the problem is at, counted from 1, where it is known (a template).
    public var column: Int?

    public init(line: Int, message: String, column: Int? = nil) {
        self.line = line
        self.message = message
        self.column = column
    }

    public var description: String { line > 0 ? "line \(line): \(message)" : message }

    /// "LINE:" or "LINE:COLUMN:", for FILE:LINE:COLUMN: messages.
    public var position: String {
        guard line > 0 else { return "" }
        return column.map { "\(line):\($0):" } ?? "\(line):"
    }
}
