import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// `usedspace click BUTTON [--pid PID] [--name NAME]`: a click, for bars that run a command
/// on a click instead of telling the block (polybar, waybar). It goes to the control socket
/// of the one `watch` that shows the clicked block (BlockEndpoint.selected), never a signal.
enum ClickCommand {
    static let command = "usedspace click"

    static let help = """
        Usage: usedspace click BUTTON [--pid PID] [--name NAME]

        Pass a click on a block to the usedspace watch that shows it: BUTTON left (show or
        hide the details), right (run the --click-right command), middle, or 1 to 5.
          polybar   click-left = usedspace click left --pid %pid%
          waybar    "on-click": "usedspace click left --name disk", with
                    "exec": "usedspace watch --format waybar --name disk"
        With --pid, the watch that is PID or runs under it; without, the watches named NAME
        of the bar this command runs under (and on its output, $WAYBAR_OUTPUT_NAME).

        Options:
        \(CommandOptions.helpText(CommandOptions.click))

        Exit status: 0 when a watch took the click, 1 when none was found, 2 for a bad
        command line.
        """

    static func run(_ arguments: ArraySlice<String>) throws(UsageError) -> Int32 {
        var scanner = ArgumentScanner(arguments, command: command, takesValue: { CommandOptions.shortOptionsWithValues(CommandOptions.click).contains($0) })
        var button: Int?
        var pid: Int32?
        var name: String?
        while let token = scanner.next() {
            switch token {
            case .positional(let word) where button == nil:
                guard let parsed = Self.button(word) else {
                    throw .invalidValue(option: "BUTTON", value: word, reason: "the buttons are left, middle, right and 1 to 5", command: command)
                }
                button = parsed
            case .positional(let word):
                throw .unexpectedArgument(word, command: command)
            case .option(let option, let inline):
                switch option {
                case "--pid":
                    let value = try scanner.value(of: option, inline: inline)
                    guard let number = Int32(value), number > 1 else {
                        throw .invalidValue(option: option, value: value, reason: "not a process id", command: command)
                    }
                    pid = number
                case "--name":
                    name = try scanner.value(of: option, inline: inline)
                case "-h", "--help":
                    StandardStreams.write(help + "\n")
                    return ExitStatus.success
                default:
                    throw .unknownOption(option, command: command)
                }
            }
        }
        guard let button else { throw .missingValue(option: "BUTTON", command: command) }
        return send(button, pid: pid, name: name)
    }

    static func button(_ word: String) -> Int? {
        switch word {
        case "left": return 1
        case "middle": return 2
        case "right": return 3
        default: return Int(word).flatMap { (1...5).contains($0) ? $0 : nil }
        }
    }

    static func send(_ button: Int, pid: Int32?, name: String?) -> Int32 {
        guard let directory = BlockControl.directory else {
            StandardStreams.error("usedspace: XDG_RUNTIME_DIR is not set: no watch can be reached")
            return ExitStatus.failure
        }
        BlockControl.removeStale(in: directory)
        let endpoints = DirectoryListing.names(in: directory).compactMap(BlockEndpoint.init(fileName:))
        let chosen = BlockEndpoint.selected(endpoints, pid: pid, name: name, output: ProcessEnvironment.value("WAYBAR_OUTPUT_NAME"),
                                            clicker: ProcessTree.lineage(of: getpid()), lineage: ProcessTree.lineage)
        var delivered = 0
        for endpoint in chosen where (try? UnixDatagram.send(ClickMessage.encode(button: button), to: directory + "/" + endpoint.fileName)) != nil {
            delivered += 1
        }
        guard delivered > 0 else {
            let which = pid.map { "running as or under process \($0)" } ?? (name.map { "named '\(ControlCharacters.replaced(in: $0))' " } ?? "") + "in this bar"
            StandardStreams.error("usedspace: no usedspace watch \(which) takes clicks (is it running, with a bar format?)")
            return ExitStatus.failure
        }
        return ExitStatus.success
    }
}
