/// A command line that cannot be run. The message names what was wrong and where to look.
public enum UsageError: Error, Equatable, CustomStringConvertible {
    case missingCommand
    case unknownCommand(String)
    case unknownOption(String, command: String)
    case missingValue(option: String, command: String)
    case invalidValue(option: String, value: String, reason: String, command: String)
    case unexpectedArgument(String, command: String)
    case valueNotAllowed(option: String, command: String)

    public var description: String {
        switch self {
        case .missingCommand:
            return "no command given; try 'usedspace status' or 'usedspace --help'"
        case .unknownCommand(let name):
            return "unknown command '\(name)'; the commands are status and watch (see 'usedspace --help')"
        case .unknownOption(let option, let command):
            return "unknown option '\(option)' for '\(command)'; see 'usedspace \(command) --help'"
        case .missingValue(let option, let command):
            return "option '\(option)' of '\(command)' needs a value; see 'usedspace \(command) --help'"
        case .invalidValue(let option, let value, let reason, _):
            return "invalid value '\(value)' for '\(option)': \(reason)"
        case .unexpectedArgument(let argument, let command):
            return "unexpected argument '\(argument)' for '\(command)'; see 'usedspace \(command) --help'"
        case .valueNotAllowed(let option, let command):
            return "option '\(option)' of '\(command)' takes no value"
        }
    }
}
