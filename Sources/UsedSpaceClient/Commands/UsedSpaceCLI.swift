import UsedSpaceCore
import UsedSpaceSystem

/// The `usedspace` command: dispatches to a subcommand and turns every error into a one-line
/// message and an exit status.
public enum UsedSpaceCLI {
    static let help = """
        Usage: usedspace COMMAND [OPTIONS]

        How full your home filesystem is, counted exactly as df(1) counts it.

        Commands:
          status   print the used percentage (and --details) once, then exit
          watch    print it again every time it changes: for status bars (i3bar, i3blocks,
                   polybar, waybar) and scripts
          list     every real filesystem of the machine, one row each, with df's numbers
          click    pass a click on a block to its watch (polybar, waybar)
          config   check the configuration file: usedspace config check
          completion  print the completion script of bash, zsh or fish
          help     show this help, or a command's help: usedspace help watch

        Options:
          -h, --help     show this help
          -V, --version  print the version

        Run 'usedspace COMMAND --help' for a command's options. See usedspace(1).
        """

    public static func main(_ arguments: [String]) -> Int32 {
        ProcessControl.resetSignalMask()
        StandardStreams.ignoreBrokenPipes()
        do {
            return try run(arguments.dropFirst())
        } catch {
            StandardStreams.error("usedspace: \(error)")
            return ExitStatus.usage
        }
    }

    static func run(_ arguments: ArraySlice<String>) throws(UsageError) -> Int32 {
        guard let command = arguments.first else {
            StandardStreams.error("usedspace: \(UsageError.missingCommand)")
            return ExitStatus.usage
        }
        let rest = arguments.dropFirst()
        switch command {
        case "status":
            let options = try StatusOptions.parse(rest)
            if options.showHelp { return printHelp(StatusOptions.help) }
            return StatusCommand.run(options)
        case "list":
            let options = try ListOptions.parse(rest)
            if options.showHelp { return printHelp(ListOptions.help) }
            return ListCommand.run(options)
        case "config":
            return try ConfigCommand.run(rest)
        case "completion":
            return try completion(rest)
        case "click":
            return try ClickCommand.run(rest)
        case "watch":
            let options = try WatchOptions.parse(rest)
            if options.showHelp { return printHelp(WatchOptions.help) }
            return WatchCommand.run(options)
        case "help", "-h", "--help":
            switch rest.first {
            case nil: return printHelp(help)
            case "status": return printHelp(StatusOptions.help)
            case "watch": return printHelp(WatchOptions.help)
            case "list": return printHelp(ListOptions.help)
            case "config": return printHelp(ConfigCommand.help)
            case "completion": return printHelp(Completions.help)
            case "click": return printHelp(ClickCommand.help)
            case let other?: throw .unknownCommand(other)
            }
        case "-V", "--version":
            StandardStreams.write("usedspace \(UsedSpaceVersion.current)\n")
            return ExitStatus.success
        default:
            if command.hasPrefix("-") { throw .unknownOption(command, command: "usedspace") }
            throw .unknownCommand(command)
        }
    }

    /// `usedspace completion SHELL`
    static func completion(_ arguments: ArraySlice<String>) throws(UsageError) -> Int32 {
        let command = "usedspace completion"
        var scanner = ArgumentScanner(arguments, command: command)
        var shell: String?
        while let token = scanner.next() {
            switch token {
            case .positional(let word) where shell == nil: shell = word
            case .positional(let word): throw .unexpectedArgument(word, command: command)
            case .option("-h", _), .option("--help", _): return printHelp(Completions.help)
            case .option(let name, _): throw .unknownOption(name, command: command)
            }
        }
        guard let shell else { throw .missingValue(option: "SHELL", command: command) }
        guard let script = Completions.script(for: shell) else {
            throw .invalidValue(option: "SHELL", value: shell, reason: "the shells are \(Completions.shells.joined(separator: ", "))", command: command)
        }
        StandardStreams.write(script)
        return ExitStatus.success
    }

    private static func printHelp(_ text: String) -> Int32 {
        StandardStreams.write(text + "\n")
        return ExitStatus.success
    }
}
