import UsedSpaceCore

/// `usedspace status [--path PATH] [--details] [--format FORMAT]`
struct StatusOptions: Equatable {
    var path: String?
    var all = false
    var details = false
    var format: OutputFormat = .text
    var noDaemon = false
    var timeoutMilliseconds: Int32 = 5000
    var showHelp = false

    static let help = """
        Usage: usedspace status [--path PATH | --all] [--details] [--format FORMAT]

        Print how full the filesystem holding PATH (default: your home directory) is, as a
        bar with the used percentage, counted the way df(1) counts it. The snapshot comes
        from usedspaced when it answers on its socket, otherwise it is sampled here.

        Options:
          -p, --path PATH      measure the filesystem that holds PATH (any file or directory)
          -a, --all            every path the daemon watches (without a daemon: the
                               [daemon] paths of the configuration), one after another
          -d, --details        also print Used, Free (available to you), Total and the
                               inodes; a fast fill, and on btrfs the allocation
          -f, --format FORMAT  text (default), json (one object per line), or one update of a
                               status bar's format: i3bar, i3blocks, polybar, waybar
              --no-daemon      sample in this process even when the daemon runs
              --timeout DURATION  give up on a network or FUSE filesystem that does not
                               answer after DURATION (default 5s)
          -h, --help           show this help

        Exit status: 0 on success, 1 when the path cannot be measured, 2 for a bad command line.
        """

    static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> StatusOptions {
        var options = StatusOptions()
        var scanner = ArgumentScanner(arguments, command: "usedspace status")
        while let token = scanner.next() {
            switch token {
            case .positional(let argument):
                throw .unexpectedArgument(argument, command: "usedspace status")
            case .option(let name, let inline):
                switch name {
                case "-p", "--path":
                    let value = try scanner.value(of: name, inline: inline)
                    guard !value.isEmpty else {
                        throw .invalidValue(option: name, value: value, reason: "the path is empty", command: "usedspace status")
                    }
                    options.path = value
                case "-a", "--all":
                    try scanner.requireNoValue(name, inline: inline)
                    options.all = true
                case "-d", "--details":
                    try scanner.requireNoValue(name, inline: inline)
                    options.details = true
                case "-f", "--format":
                    let value = try scanner.value(of: name, inline: inline)
                    guard let format = OutputFormat(rawValue: value), StatusOptions.formats.contains(format) else {
                        throw .invalidValue(
                            option: name, value: value,
                            reason: "the formats are \(StatusOptions.formats.map(\.rawValue).joined(separator: ", "))",
                            command: "usedspace status")
                    }
                    options.format = format
                case "--timeout":
                    options.timeoutMilliseconds = Int32(try scanner.duration(of: name, inline: inline, in: DaemonSettings.timeoutRange) / 1000)
                case "--no-daemon":
                    try scanner.requireNoValue(name, inline: inline)
                    options.noDaemon = true
                case "-h", "--help":
                    options.showHelp = true
                default:
                    throw .unknownOption(name, command: "usedspace status")
                }
            }
        }
        if options.all && options.path != nil {
            throw .conflicting("--all", "--path", command: "usedspace status")
        }
        return options
    }

    static let formats: [OutputFormat] = OutputFormat.allCases
}
