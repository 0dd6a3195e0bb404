import UsedSpaceCore

/// `usedspace status [--path PATH | --all] [--details] [--format FORMAT] [bar options]`
struct StatusOptions: Equatable, TargetOptions {
    var path: String?
    var all = false
    var details = false
    var format: OutputFormat = .text
    var noDaemon = false
    var timeoutMilliseconds: Int32 = 5000
    var configPath: String?
    var bar = BarArguments()
    /// i3blocks' `signal=N` of this block (I3blocksFollow).
    var signal: Int32?
    /// `--after SEQS`: the seqs of the answer the caller has (StatusLongPoll).
    var after: [UInt64]?
    var showHelp = false

    static let command = "usedspace status"

    static let help = """
        Usage: usedspace status [--path PATH | --all] [--details] [--format FORMAT] [OPTIONS]

        Print how full the filesystem holding PATH (default: your home directory) is, as a
        bar with the used percentage, counted the way df(1) counts it. The snapshot comes
        from usedspaced when it answers on its socket, otherwise it is sampled here.
        Templates show any of the numbers, e.g. --template '{free:iec} free' prints the
        free space as df -h does (see TEMPLATES in usedspace(1)).

        Options:
        \(CommandOptions.helpText(CommandOptions.status))

        The bar formats also take the [bar] and [filesystem PATH] settings of
        ~/.config/usedspace/config (usedspace.conf(5)); options win. Text and json read no
        configuration. Exit status: 0 on success, 1 when the path cannot be measured, 2 for
        a bad command line.
        """

    static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> StatusOptions {
        var options = StatusOptions()
        var scanner = ArgumentScanner(arguments, command: command, takesValue: { CommandOptions.shortOptionsWithValues(CommandOptions.status).contains($0) })
        while let token = scanner.next() {
            switch token {
            case .positional(let argument):
                throw .unexpectedArgument(argument, command: command)
            case .option(let name, let inline):
                if try options.bar.take(name, inline: inline, scanner: &scanner) { continue }
                if try options.takeTargetOption(name, inline: inline, scanner: &scanner) { continue }
                switch name {
                case "-d", "--details":
                    try scanner.requireNoValue(name, inline: inline)
                    options.details = true
                case "--timeout":
                    options.timeoutMilliseconds = Int32(try scanner.duration(of: name, inline: inline, in: DaemonSettings.timeoutRange) / 1000)
                case "--signal":
                    options.signal = try i3blocksSignal(name, scanner.value(of: name, inline: inline))
                case "--after":
                    let value = try scanner.value(of: name, inline: inline)
                    guard let seqs = StatusLongPoll.parse(value) else {
                        throw .invalidValue(option: name, value: value, reason: "the seqs of the last answer, separated by commas, such as 12,7", command: command)
                    }
                    options.after = seqs
                default:
                    throw .unknownOption(name, command: command)
                }
            }
        }
        try options.checkTargetOptions()
        if options.after != nil && options.noDaemon {
            throw .conflicting("--after", "--no-daemon", command: command)
        }
        if options.after != nil && options.signal != nil {
            throw .conflicting("--after", "--signal", command: command)
        }
        if options.signal != nil && options.format != .i3blocks {
            throw .invalidValue(option: "--signal", value: "\(options.signal!)", reason: "it is for --format i3blocks", command: command)
        }
        return options
    }
}
