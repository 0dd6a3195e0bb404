/// A command line that cannot be run. The message names what was wrong and where to look.
/// `command` is the invocation as typed, e.g. "usedspace status" or "usedspaced".
public enum UsageError: Error, Equatable, CustomStringConvertible {
    case missingCommand
    case unknownCommand(String)
    case unknownOption(String, command: String)
    case missingValue(option: String, command: String)
    case invalidValue(option: String, value: String, reason: String, command: String)
    case unexpectedArgument(String, command: String)
    case valueNotAllowed(option: String, command: String)
    /// Two options that cannot be given together.
    case conflicting(String, String, command: String)

    public var description: String {
        switch self {
        case .missingCommand:
            return "no command given; try 'usedspace status' or 'usedspace --help'"
        case .unknownCommand(let name):
            return "unknown command '\(ControlCharacters.replaced(in: name))'; see 'usedspace --help' for the commands"
        case .unknownOption(let option, let command):
            return "unknown option '\(ControlCharacters.replaced(in: option))' for '\(command)'; see '\(command) --help'"
        case .missingValue(let option, let command):
            return "option '\(option)' of '\(command)' needs a value; see '\(command) --help'"
        case .invalidValue(let option, let value, let reason, _):
            return "invalid value '\(ControlCharacters.replaced(in: value))' for '\(option)': \(reason)"
        case .unexpectedArgument(let argument, let command):
            return "unexpected argument '\(ControlCharacters.replaced(in: argument))' for '\(command)'; see '\(command) --help'"
        case .valueNotAllowed(let option, let command):
            return "option '\(option)' of '\(command)' takes no value"
        case .conflicting(let first, let second, let command):
            return "options '\(first)' and '\(second)' of '\(command)' exclude each other; give one of them"
        }
    }
}
