/// Walks a command's arguments: `--name value`, `--name=value`, `-n value`, flags, short
/// options combined as getopt takes them (`-ad`, `-df json`, `-p/tmp`: a short option
/// that takes a value takes the rest of its cluster, or else the next argument), and `--`
/// ending the options. Deliberately small (no swift-argument-parser): linking that costs the
/// one-shot client about twice its start-up time (docs/PERFORMANCE.md).
public struct ArgumentScanner {
    public enum Token: Equatable {
        case option(String, inlineValue: String?)
        case positional(String)
    }

    private var arguments: ArraySlice<String>
    private var optionsEnded = false
    /// The rest of a cluster of short options (`-ad`: "d" after "-a" was returned).
    private var cluster: Substring = ""
    /// Asked only for a cluster (`-df`), so that a plain command line costs no table.
    private let takesValue: (Character) -> Bool
    public let command: String

    public init(_ arguments: ArraySlice<String>, command: String, takesValue: @escaping (Character) -> Bool = { _ in false }) {
        self.arguments = arguments
        self.command = command
        self.takesValue = takesValue
    }

    public mutating func next() -> Token? {
        if let short = cluster.first {
            cluster = cluster.dropFirst()
            return shortOption(short)
        }
        guard let argument = arguments.popFirst() else { return nil }
        if optionsEnded || argument == "-" || !argument.hasPrefix("-") { return .positional(argument) }
        if argument == "--" {
            optionsEnded = true
            return next()
        }
        if argument.hasPrefix("--") {
            if let equals = argument.firstIndex(of: "=") {
                return .option(String(argument[..<equals]), inlineValue: String(argument[argument.index(after: equals)...]))
            }
            return .option(argument, inlineValue: nil)
        }
        let shorts = argument.dropFirst()
        cluster = shorts.dropFirst()
        return shortOption(shorts.first!)
    }

    /// `-x`; one that takes a value takes the rest of the cluster as it, if any.
    private mutating func shortOption(_ name: Character) -> Token {
        guard !cluster.isEmpty, takesValue(name) else { return .option("-" + String(name), inlineValue: nil) }
        let value = String(cluster)
        cluster = ""
        return .option("-" + String(name), inlineValue: value)
    }

    /// The value of an option: its inline `=value` (or the rest of its cluster), or the
    /// next argument.
    public mutating func value(of option: String, inline: String?) throws(UsageError) -> String {
        if let inline { return inline }
        if !cluster.isEmpty {
            defer { cluster = "" }
            return String(cluster)
        }
        guard let value = arguments.popFirst() else { throw .missingValue(option: option, command: command) }
        return value
    }

    /// The value of an option that takes a duration ("5s", "500ms", "2min") within `range`
    /// (microseconds), with the reason when it is not one.
    public mutating func duration(of option: String, inline: String?, in range: ClosedRange<UInt64>) throws(UsageError) -> UInt64 {
        let value = try value(of: option, inline: inline)
        guard let microseconds = DurationParser.microseconds(value) else {
            throw .invalidValue(option: option, value: value, reason: "not a duration such as 5s, 500ms or 2min", command: command)
        }
        guard range.contains(microseconds) else {
            let limits = "\(DurationParser.describe(microseconds: range.lowerBound)) to \(DurationParser.describe(microseconds: range.upperBound))"
            throw .invalidValue(option: option, value: value, reason: "must be from \(limits)", command: command)
        }
        return microseconds
    }

    /// For flags: `--details=yes` is a mistake worth reporting, not ignoring.
    public func requireNoValue(_ option: String, inline: String?) throws(UsageError) {
        if inline != nil { throw .valueNotAllowed(option: option, command: command) }
    }
}
