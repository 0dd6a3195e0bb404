import UsedSpaceCore

/// `usedspace watch`: one line (or block) per published snapshot, for status bars.
struct WatchOptions: TargetOptions {
    var path: String?
    var all = false
    var format: OutputFormat = .text
    var expanded = false
    var intervalMicroseconds: UInt64 = 5_000_000
    var timeoutMicroseconds: UInt64 = 5_000_000
    var configPath: String?
    var noDaemon = false
    var showHelp = false
    /// Bar settings given on the command line, applied over the config file's.
    var bar = BarArguments()
    /// The block's name, for `usedspace click --name` (default: i3blocks' $BLOCK_NAME).
    var name: String?
    /// Follow for i3blocks: signal this bar at every change instead of printing.
    var barPID: Int32?
    var signal: Int32?

    static let command = "usedspace watch"

    static let help = """
        Usage: usedspace watch [--path PATH] [--format FORMAT] [OPTIONS]

        Print the used share of the filesystem holding PATH (default: your home directory)
        every time it changes by at least the daemon's threshold: pushed by usedspaced, or,
        when no daemon answers, sampled here every --interval. For status bars:
          i3bar      status_command usedspace watch --format i3bar
          i3blocks   command=usedspace status --format i3blocks --signal 10,
                     interval=once, signal=10, format=json (see status --help)
          polybar    exec = usedspace watch --format polybar, tail = true,
                     click-left = usedspace click left --pid %pid%
          waybar     "exec": "usedspace watch --format waybar --name disk",
                     "return-type": "json", "on-click": "usedspace click left --name disk"
        A left click shows or hides Used, Free and Total, a right click runs the
        --click-right command: i3bar sends clicks to the block; polybar and waybar run
        usedspace click, which reaches this watch and no other (usedspace click --help);
        SIGUSR1 and SIGUSR2 do the same. A fast fill, or btrfs metadata that cannot grow,
        raises the level whatever the limits say.

        Options:
        \(CommandOptions.helpText(CommandOptions.watch))

        The bar formats also take the [bar] and [filesystem PATH] settings of
        ~/.config/usedspace/config (usedspace.conf(5)); options win. Text and json take
        their settings from the command line only.
        """

    static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> WatchOptions {
        var options = WatchOptions()
        var scanner = ArgumentScanner(arguments, command: command, takesValue: { CommandOptions.shortOptionsWithValues(CommandOptions.watch).contains($0) })
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
                    options.expanded = true
                case "--interval":
                    options.intervalMicroseconds = try scanner.duration(of: name, inline: inline, in: DaemonSettings.intervalRange)
                case "--timeout":
                    // The daemon's limits for the same setting (sample-timeout), not the interval's.
                    options.timeoutMicroseconds = try scanner.duration(of: name, inline: inline, in: DaemonSettings.timeoutRange)
                case "--bar-pid":
                    let value = try scanner.value(of: name, inline: inline)
                    guard let number = Int32(value), number > 1 else {
                        throw .invalidValue(option: name, value: value, reason: "not a process id", command: command)
                    }
                    options.barPID = number
                case "--signal":
                    options.signal = try i3blocksSignal(name, scanner.value(of: name, inline: inline))
                case "--name":
                    let value = try scanner.value(of: name, inline: inline)
                    guard !value.isEmpty, value.count <= 64 else {
                        throw .invalidValue(option: name, value: value, reason: "a name is 1 to 64 characters", command: command)
                    }
                    options.name = value
                default:
                    throw .unknownOption(name, command: command)
                }
            }
        }
        try options.checkTargetOptions()
        if (options.barPID == nil) != (options.signal == nil) {
            throw .invalidValue(option: options.barPID == nil ? "--signal" : "--bar-pid", value: "", reason: "--bar-pid and --signal go together", command: command)
        }
        return options
    }
}
