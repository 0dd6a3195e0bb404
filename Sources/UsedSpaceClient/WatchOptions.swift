import UsedSpaceCore

/// `usedspace watch`: one line (or block) per published snapshot, for status bars.
struct WatchOptions {
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
    var barSettings: [(key: String, value: String)] = []

    static let command = "usedspace watch"

    static let help = """
        Usage: usedspace watch [--path PATH] [--format FORMAT] [OPTIONS]

        Print the used share of the filesystem holding PATH (default: your home directory)
        every time it changes by at least the daemon's threshold: pushed by usedspaced, or,
        when no daemon answers, sampled here every --interval. For status bars:
          i3bar      status_command usedspace watch --format i3bar
          i3blocks   command=usedspace watch --format i3blocks, interval=persist, format=json
          polybar    exec = usedspace watch --format polybar, tail = true
          waybar     "exec": "usedspace watch --format waybar", "return-type": "json"
        A left click (i3bar, i3blocks) or SIGUSR1 shows or hides Used, Free and Total; a
        right click or SIGUSR2 runs the --click-right command. A fast fill, or btrfs
        metadata that cannot grow, raises the level whatever the limits say.

        Options:
          -p, --path PATH          the filesystem holding PATH
          -a, --all                every path the daemon watches (the [daemon] paths of
                                   the configuration without a daemon); i3bar gets a
                                   block each, the other bars one text for all
          -f, --format FORMAT      text (default), json, i3bar, i3blocks, polybar, waybar
          -d, --details            start with the details shown
              --warn LIMIT         warning colour from LIMIT on: a used percentage (80%)
                                   or a free size (10GB); repeat for several
              --critical LIMIT     critical colour and urgency from LIMIT on; repeatable
              --hysteresis PCT     how far back a value must go before a level clears
                                   (default 1%)
              --hide-below PCT     show nothing while less than PCT is used
              --click-right CMD    run CMD with /bin/sh on a right click, e.g. 'baobab ~'
              --label TEXT         text before the bar
              --bar-width N        cells of the bar, 0 for none (default 10)
              --interval DURATION  without a daemon, sample this often (default 5s)
              --timeout DURATION   without a daemon, give up on statvfs after this
                                   (default 5s) and mark the numbers stale
              --config FILE        read the [bar] settings from FILE
              --no-daemon          always sample here
          -h, --help               show this help

        Settings also come from the [bar] section of ~/.config/usedspace/config
        (usedspace.conf(5)); options win.
        """

    static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> WatchOptions {
        var options = WatchOptions()
        var scanner = ArgumentScanner(arguments, command: command)
        while let token = scanner.next() {
            switch token {
            case .positional(let argument):
                throw .unexpectedArgument(argument, command: command)
            case .option(let name, let inline):
                switch name {
                case "-p", "--path":
                    let value = try scanner.value(of: name, inline: inline)
                    guard !value.isEmpty else { throw .invalidValue(option: name, value: value, reason: "the path is empty", command: command) }
                    options.path = value
                case "-f", "--format":
                    let value = try scanner.value(of: name, inline: inline)
                    guard let format = OutputFormat(rawValue: value) else {
                        throw .invalidValue(option: name, value: value, reason: "the formats are \(OutputFormat.names)", command: command)
                    }
                    options.format = format
                case "-a", "--all":
                    try scanner.requireNoValue(name, inline: inline)
                    options.all = true
                case "-d", "--details":
                    try scanner.requireNoValue(name, inline: inline)
                    options.expanded = true
                case "--warn", "--critical", "--hysteresis", "--hide-below", "--click-right", "--label", "--bar-width":
                    let value = try scanner.value(of: name, inline: inline)
                    // Checked now, so that a typo fails here and not in a status bar.
                    var probe = BarOptions()
                    var warning: [AlertLimit] = [], critical: [AlertLimit] = []
                    do {
                        try probe.set(String(name.dropFirst(2)), value, warning: &warning, critical: &critical)
                    } catch {
                        throw .invalidValue(option: name, value: value, reason: error.message, command: command)
                    }
                    options.barSettings.append((String(name.dropFirst(2)), value))
                case "--interval":
                    options.intervalMicroseconds = try scanner.duration(of: name, inline: inline, in: DaemonSettings.intervalRange)
                case "--timeout":
                    // The daemon's limits for the same setting (sample-timeout), not the interval's.
                    options.timeoutMicroseconds = try scanner.duration(of: name, inline: inline, in: DaemonSettings.timeoutRange)
                case "--config":
                    options.configPath = try scanner.value(of: name, inline: inline)
                case "--no-daemon":
                    try scanner.requireNoValue(name, inline: inline)
                    options.noDaemon = true
                case "-h", "--help":
                    options.showHelp = true
                default:
                    throw .unknownOption(name, command: command)
                }
            }
        }
        if options.all && options.path != nil {
            throw .conflicting("--all", "--path", command: command)
        }
        return options
    }

    /// The config file's [bar] settings with this command line's on top.
    func barOptions(base: BarOptions) -> BarOptions {
        var bar = base
        var warning: [AlertLimit] = [], critical: [AlertLimit] = []
        for (key, value) in barSettings {
            try? bar.set(key, value, warning: &warning, critical: &critical)
        }
        if !warning.isEmpty { bar.severity.warning = warning }
        if !critical.isEmpty { bar.severity.critical = critical }
        return bar
    }
}
