import UsedSpaceCore

/// The options `status` and `watch` read alike: which filesystem (`--path`, `--all`), the
/// format, the configuration file, whether to ask the daemon, `--help`; one parser for
/// both, so that they cannot come to disagree.
protocol TargetOptions {
    static var command: String { get }
    var path: String? { get set }
    var all: Bool { get set }
    var format: OutputFormat { get set }
    var configPath: String? { get set }
    var noDaemon: Bool { get set }
    var showHelp: Bool { get set }
}

extension TargetOptions {
    /// Takes `name` when it is one of these options; false when it is not.
    mutating func takeTargetOption(_ name: String, inline: String?, scanner: inout ArgumentScanner) throws(UsageError) -> Bool {
        switch name {
        case "-p", "--path":
            let value = try scanner.value(of: name, inline: inline)
            guard !value.isEmpty else { throw .invalidValue(option: name, value: value, reason: "the path is empty", command: Self.command) }
            path = value
        case "-a", "--all":
            try scanner.requireNoValue(name, inline: inline)
            all = true
        case "-f", "--format":
            let value = try scanner.value(of: name, inline: inline)
            guard let chosen = OutputFormat(rawValue: value) else {
                throw .invalidValue(option: name, value: value, reason: "the formats are \(OutputFormat.names)", command: Self.command)
            }
            format = chosen
        case "--config":
            configPath = try scanner.value(of: name, inline: inline)
        case "--no-daemon":
            try scanner.requireNoValue(name, inline: inline)
            noDaemon = true
        case "-h", "--help":
            showHelp = true
        default:
            return false
        }
        return true
    }

    /// What the options above rule out together.
    func checkTargetOptions() throws(UsageError) {
        if all && path != nil { throw .conflicting("--all", "--path", command: Self.command) }
    }

    /// `--signal N`: i3blocks' signal of the block.
    static func i3blocksSignal(_ name: String, _ value: String) throws(UsageError) -> Int32 {
        guard let number = Int32(value), I3blocksFollow.signalRange.contains(number) else {
            throw .invalidValue(option: name, value: value, reason: "i3blocks' signal is a number from 1 to 30", command: command)
        }
        return number
    }
}
