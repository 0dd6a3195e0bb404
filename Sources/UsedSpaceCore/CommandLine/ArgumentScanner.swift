/// Walks a command's arguments: `--name value`, `--name=value`, `-n value`, flags, and `--`
/// ending the options. Deliberately small (no swift-argument-parser): linking that costs the
/// one-shot client about twice its start-up time (docs/PERFORMANCE.md).
public struct ArgumentScanner {
    public enum Token: Equatable {
        case option(String, inlineValue: String?)
        case positional(String)
    }

    private var arguments: ArraySlice<String>
    private var optionsEnded = false
    public let command: String

    public init(_ arguments: ArraySlice<String>, command: String) {
        self.arguments = arguments
        self.command = command
    }

    public mutating func next() -> Token? {
        guard let argument = arguments.popFirst() else { return nil }
        if optionsEnded || argument == "-" || !argument.hasPrefix("-") { return .positional(argument) }
        if argument == "--" {
            optionsEnded = true
            return next()
        }
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            return .option(String(argument[..<equals]), inlineValue: String(argument[argument.index(after: equals)...]))
        }
        return .option(argument, inlineValue: nil)
    }

    /// The value of an option: its inline `=value`, or the next argument.
    public mutating func value(of option: String, inline: String?) throws(UsageError) -> String {
        if let inline { return inline }
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
