import UsedSpaceCore

/// One option of a command: what `--help` lists, what the parser takes (a short option
/// with a value can be combined: `-df json`, `-p/tmp`), and what the shell completions
/// offer. The help and the completions are both made from these tables, so they cannot
/// drift apart.
struct OptionSpec {
    enum Completion: Equatable {
        case none
        case path
        case file
        case command
        case choices([String])
    }

    var long: String
    var short: Character?
    /// The value's name in the help (PATH); nil for a flag.
    var value: String?
    var help: [String]
    var completion: Completion = .none

    init(_ long: String, short: Character? = nil, value: String? = nil, _ help: [String], completion: Completion = .none) {
        self.long = long
        self.short = short
        self.value = value
        self.help = help
        self.completion = completion
    }

    var names: [String] { (short.map { ["-" + String($0)] } ?? []) + [long] }
}

/// The option tables of `usedspace` and its commands.
enum CommandOptions {
    static let help = OptionSpec("--help", short: "h", ["show this help"])
    static let path = OptionSpec("--path", short: "p", value: "PATH", ["the filesystem holding PATH (default: your home", "directory's)"], completion: .path)
    static let all = OptionSpec("--all", short: "a", ["every path the daemon watches (without a daemon: the", "[daemon] paths of the configuration)"])
    static let format = OptionSpec("--format", short: "f", value: "FORMAT", ["text (default), json, or a status bar's: i3bar,", "i3blocks, polybar, waybar"],
                                   completion: .choices(OutputFormat.allCases.map { $0.rawValue }))
    static let details = OptionSpec("--details", short: "d", ["also show Used, Free (available to you) and Total;", "a fast fill, and on btrfs the allocation"])
    static let noDaemon = OptionSpec("--no-daemon", ["sample in this process even when the daemon runs"])
    static let config = OptionSpec("--config", value: "FILE", ["read the configuration from FILE"], completion: .file)

    /// The settings of how a filesystem is shown: the same for `status` and `watch`, and
    /// keys of the [bar] section of the configuration by the same names.
    static let bar: [OptionSpec] = [
        OptionSpec("--warn", value: "LIMIT", ["warning colour from LIMIT on: a used percentage", "(80%) or a free size (10GB); repeat for several"]),
        OptionSpec("--critical", value: "LIMIT", ["critical colour and urgency from LIMIT on; repeatable"]),
        OptionSpec("--hysteresis", value: "PCT", ["how far back a value must go before a level clears", "(default 1%)"]),
        OptionSpec("--hide-below", value: "PCT", ["hide the block while less than PCT is used"]),
        OptionSpec("--click-right", value: "CMD", ["run CMD with /bin/sh on a right click (watch)"], completion: .command),
        OptionSpec("--label", value: "TEXT", ["text before the bar ({label})"]),
        OptionSpec("--bar-width", value: "N", ["cells of the bar, 0 for none (default 10; text: 20)"]),
        OptionSpec("--bar-glyphs", value: "CHARS", ["the filled and the empty cell, e.g. '#-' (or ascii)"]),
        OptionSpec("--unit", value: "UNIT", ["sizes as file (311.16 GB, the default), si (df -H),", "iec (df -h) or bytes"],
                   completion: .choices(SizeUnit.allCases.map { $0.rawValue })),
        OptionSpec("--icons", value: "ICONS", ["the icon ramp of {icon}, e.g. '▁▃▅▇'"]),
        OptionSpec("--template", value: "TEXT", ["what the block shows, e.g. '{free:iec} free'"]),
        OptionSpec("--template-warning", value: "TEXT", ["… at the warning level"]),
        OptionSpec("--template-critical", value: "TEXT", ["… at the critical level"]),
        OptionSpec("--template-stale", value: "TEXT", ["… while the numbers are stale"]),
        OptionSpec("--template-failed", value: "TEXT", ["… when there are no numbers ({error})"]),
        OptionSpec("--template-not-mounted", value: "TEXT", ["… when nothing is mounted there"]),
        OptionSpec("--template-below", value: "TEXT", ["… below --hide-below (default: hidden)"]),
        OptionSpec("--template-details", value: "TEXT", ["one line of the details; repeat for each line"]),
        OptionSpec("--color-normal", value: "COLOR", ["the colour of the normal level, #rrggbb or none"]),
        OptionSpec("--color-warning", value: "COLOR", ["… of the warning level (default #FFFF00)"]),
        OptionSpec("--color-critical", value: "COLOR", ["… of the critical level (default #FF0000)"]),
    ]

    static let status: [OptionSpec] = [path, all, details, format] + bar + [
        OptionSpec("--signal", value: "N", ["for an i3blocks block with interval=once and", "signal=N: take its clicks, and have it re-run at", "every change"]),
        OptionSpec("--after", value: "SEQS", ["wait until the answer differs from the one with these", "seqs (comma-separated, as printed), then print it:", "a widget's long poll"]),
        config, noDaemon,
        OptionSpec("--timeout", value: "DURATION", ["give up on a network or FUSE filesystem that does", "not answer after DURATION (default 5s)"]),
        help,
    ]

    static let watch: [OptionSpec] = [path, all, format, details] + bar + [
        OptionSpec("--name", value: "NAME", ["the block's name for usedspace click --name", "(default: $BLOCK_NAME)"]),
        OptionSpec("--bar-pid", value: "PID", ["print nothing: send SIGRTMIN+N (--signal) to PID at", "every change, and end with it (what status --signal", "starts for i3blocks)"]),
        OptionSpec("--signal", value: "N", ["the signal for --bar-pid"]),
        OptionSpec("--interval", value: "DURATION", ["without a daemon, sample this often (default 5s)"]),
        OptionSpec("--timeout", value: "DURATION", ["without a daemon, give up on statvfs after this", "(default 5s) and mark the numbers stale"]),
        config,
        OptionSpec("--no-daemon", ["always sample here"]),
        help,
    ]

    static let list: [OptionSpec] = [
        OptionSpec("--type", short: "t", value: "TYPE", ["only filesystems of TYPE (ext4, nfs4, tmpfs…), even", "one hidden by default; repeat or separate by commas"]),
        OptionSpec("--exclude-type", short: "x", value: "TYPE", ["leave out filesystems of TYPE; repeatable"]),
        OptionSpec("--mount", short: "m", value: "PATTERN", ["only mount points matching PATTERN, a path or a", "glob such as '/media/*'; repeatable"], completion: .path),
        OptionSpec("--all", short: "a", ["every mount, pseudo, duplicate and empty ones too", "(as df -a)"]),
        OptionSpec("--loops", ["also squashfs loop images (snaps)"]),
        OptionSpec("--format", short: "f", value: "FORMAT", ["text (default) or json: one object per filesystem", "per line, with the keys of status --format json"],
                   completion: .choices(["text", "json"])),
        OptionSpec("--unit", value: "UNIT", ["sizes as iec (df -h, the default), si (df -H),", "file (311.16 GB) or bytes"],
                   completion: .choices(SizeUnit.allCases.map { $0.rawValue })),
        OptionSpec("--warn", value: "LIMIT", ["yellow from LIMIT on: a used percentage or a free", "size (default 80%); repeatable"]),
        OptionSpec("--critical", value: "LIMIT", ["red from LIMIT on (default 90%); repeatable"]),
        OptionSpec("--bar-width", value: "N", ["cells of the bar, 0 for none (default 10)"]),
        OptionSpec("--bar-glyphs", value: "CHARS", ["the filled and the empty cell, e.g. '#-' (or ascii)"]),
        OptionSpec("--timeout", value: "DURATION", ["give up on a filesystem that does not answer after", "DURATION (default 5s)"]),
        OptionSpec("--no-daemon", ["do not ask usedspaced for the time to full"]),
        help,
    ]

    static let configCommand: [OptionSpec] = [config, help]
    static let click: [OptionSpec] = [
        OptionSpec("--pid", value: "PID", ["the watch that is PID or runs under it (polybar's", "%pid%)"]),
        OptionSpec("--name", value: "NAME", ["the watch started with --name NAME, in this bar"]),
        help,
    ]
    static let completion: [OptionSpec] = [help]
    static let top: [OptionSpec] = [help, OptionSpec("--version", short: "V", ["print the version"])]

    static let commands: [(name: String, options: [OptionSpec])] = [
        ("status", status), ("watch", watch), ("list", list), ("click", click), ("config", configCommand), ("completion", completion), ("help", []),
    ]

    /// "  -p, --path PATH          the filesystem…", continuation lines aligned.
    static func helpText(_ options: [OptionSpec]) -> String {
        let column = 27
        return options.map { option in
            var head = "  " + (option.short.map { "-\($0), " } ?? "    ") + option.long + (option.value.map { " " + $0 } ?? "")
            var lines: [String] = []
            if head.count + 2 > column {
                lines.append(head)
                head = ""
            }
            for (index, text) in option.help.enumerated() {
                let start = index == 0 && !head.isEmpty ? head : ""
                lines.append(start + String(repeating: " ", count: column - start.count) + text)
            }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Short options that take a value: in a cluster, the rest of it (or the next
    /// argument) is their value.
    static func shortOptionsWithValues(_ options: [OptionSpec]) -> Set<Character> {
        Set(options.compactMap { $0.value == nil ? nil : $0.short })
    }

    static var barKeys: [String] { bar.map { String($0.long.dropFirst(2)) } }
}
