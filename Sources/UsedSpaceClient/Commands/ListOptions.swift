import UsedSpaceCore

/// `usedspace list [--type TYPE] [--exclude-type TYPE] [--mount PATTERN] [--all] [--loops]
/// [--format text|json] [--unit UNIT] …`
struct ListOptions: Equatable {
    var format: OutputFormat = .text
    var types: [String] = []
    var excludedTypes: [String] = []
    var mountPatterns: [String] = []
    var all = false
    var loops = false
    var unit: SizeUnit = .iec
    var warning: [AlertLimit] = []
    var critical: [AlertLimit] = []
    var barWidth = 10
    var glyphs: BarGlyphs = .blocks
    var timeoutMilliseconds: Int32 = 5000
    var noDaemon = false
    var showHelp = false

    static let command = "usedspace list"

    static let help = """
        Usage: usedspace list [--type TYPE] [--exclude-type TYPE] [--mount PATTERN] [OPTIONS]

        Every real filesystem of the machine, one row each, with df's numbers: mount point,
        type, a bar, Use%, Used, Free (available to you, df's Avail), Size, inode use, a
        read-only mark, and the time to full where usedspaced has an estimate. Sorted by
        mount point. "Real" leaves out pseudo filesystems (proc, sysfs, cgroup…), memory
        filesystems (tmpfs), squashfs images (snaps), bind mounts and other mounts of a
        filesystem already shown: the whole rule is in docs/list.md. A network or
        FUSE filesystem is measured in a process of its own: one that does not answer
        within --timeout is a row that says so. The table fits the terminal (columns go
        in a documented order) and is coloured on a terminal unless NO_COLOR is set.

        Options:
        \(CommandOptions.helpText(CommandOptions.list))

        Exit status: 0 on success, 1 when a filesystem shown could not be measured or none
        is left to list, 2 for a bad command line.
        """

    static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> ListOptions {
        var options = ListOptions()
        var bar = BarArguments()
        var scanner = ArgumentScanner(arguments, command: command, takesValue: { CommandOptions.shortOptionsWithValues(CommandOptions.list).contains($0) })
        while let token = scanner.next() {
            switch token {
            case .positional(let argument):
                throw .unexpectedArgument(argument, command: command)
            case .option(let name, let inline):
                // The settings list shares with the bars, read by their one parser.
                if Self.barOptionNames.contains(name), try bar.take(name, inline: inline, scanner: &scanner) { continue }
                switch name {
                case "-f", "--format":
                    let value = try scanner.value(of: name, inline: inline)
                    guard let format = OutputFormat(rawValue: value), format == .text || format == .json else {
                        throw .invalidValue(option: name, value: value, reason: "the formats of list are text and json", command: command)
                    }
                    options.format = format
                case "-t", "--type":
                    options.types += try typeList(name, scanner.value(of: name, inline: inline))
                case "-x", "--exclude-type":
                    options.excludedTypes += try typeList(name, scanner.value(of: name, inline: inline))
                case "-m", "--mount":
                    let value = try scanner.value(of: name, inline: inline)
                    guard !value.isEmpty else {
                        throw .invalidValue(option: name, value: value, reason: "the pattern is empty: a mount point or a glob such as '/media/*'", command: command)
                    }
                    // "/home/" as typed by a shell's completion means the mount point /home.
                    var pattern = Substring(value)
                    while pattern.count > 1, pattern.hasSuffix("/") { pattern = pattern.dropLast() }
                    options.mountPatterns.append(String(pattern))
                case "-a", "--all":
                    try scanner.requireNoValue(name, inline: inline)
                    options.all = true
                case "--loops":
                    try scanner.requireNoValue(name, inline: inline)
                    options.loops = true
                case "--timeout":
                    options.timeoutMilliseconds = Int32(try scanner.duration(of: name, inline: inline, in: DaemonSettings.timeoutRange) / 1000)
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
        options.apply(bar)
        return options
    }

    /// The [bar] settings that `list` takes as options: their values are checked and read
    /// as `status` and `watch` read them (BarArguments, BarOptions.set).
    static let barOptionNames = ["--unit", "--warn", "--critical", "--bar-width", "--bar-glyphs"]

    /// What the command line's bar settings say, over list's own defaults (sizes as df -h
    /// writes them, 80 % and 90 %).
    private mutating func apply(_ bar: BarArguments) {
        guard !bar.isEmpty else { return }
        let given = bar.options()
        if bar.settings.contains(where: { $0.key == "unit" }) { unit = given.unit }
        warning = given.severity.warning
        critical = given.severity.critical
        barWidth = given.barWidth ?? barWidth
        glyphs = given.glyphs
    }

    /// "ext4,xfs" → ["ext4", "xfs"]: names as the kernel writes them in mountinfo.
    static func typeList(_ option: String, _ value: String) throws(UsageError) -> [String] {
        let types = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for type in types {
            let allowed = !type.isEmpty && type.utf8.count <= 64 && type.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "_" || $0 == "-"
            }
            guard allowed else {
                // A hostile value is not echoed whole: the start says which one it was.
                let shown = value.count > 60 ? String(value.prefix(60)) + "…" : value
                throw .invalidValue(option: option, value: shown,
                                    reason: "a filesystem type as mount(8) names it (ext4, fuse.sshfs), several separated by commas", command: command)
            }
        }
        return types
    }

    var severityPolicy: SeverityPolicy {
        SeverityPolicy(warning: warning, critical: critical).withStandardLimits()
    }
}
