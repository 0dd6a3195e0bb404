import UsedSpaceCore
import UsedSpaceSystem

/// `usedspace config check [--config FILE]`: validates the configuration file the daemon and
/// the bars read, reporting every problem with its line, as a compiler would.
enum ConfigCommand {
    static let help = """
        Usage: usedspace config check [--config FILE]

        Check the configuration file (default: $XDG_CONFIG_HOME/usedspace/config, usually
        ~/.config/usedspace/config) and report every problem as FILE:LINE: message. Exit
        status 0 when it is valid or absent (the defaults apply), 1 when it has problems.
        See usedspace.conf(5). Apply a valid file with: systemctl --user reload usedspace
        """

    static func run(_ arguments: ArraySlice<String>) throws(UsageError) -> Int32 {
        let command = "usedspace config"
        var scanner = ArgumentScanner(arguments, command: command)
        var action: String?
        var path: String?
        while let token = scanner.next() {
            switch token {
            case .positional(let word) where action == nil:
                action = word
            case .positional(let word):
                throw .unexpectedArgument(word, command: command)
            case .option(let name, let inline):
                switch name {
                case "--config":
                    path = try scanner.value(of: name, inline: inline)
                case "-h", "--help":
                    StandardStreams.write(help + "\n")
                    return ExitStatus.success
                default:
                    throw .unknownOption(name, command: command)
                }
            }
        }
        guard let action else {
            StandardStreams.write(help + "\n")
            return ExitStatus.usage
        }
        guard action == "check" else {
            throw .unexpectedArgument(action, command: command)
        }
        return check(explicitPath: path)
    }

    static func check(explicitPath: String?) -> Int32 {
        guard let path = explicitPath ?? ClientConfiguration.defaultPath else {
            StandardStreams.error("usedspace: neither XDG_CONFIG_HOME nor HOME is set; use --config FILE")
            return ExitStatus.failure
        }
        let text: String
        do {
            text = try FileContents.readText(path, limit: ConfigFile.maximumSize + 1)
        } catch {
            if case .system(let system) = error, system.isNotFound, explicitPath == nil {
                StandardStreams.write("\(path): no configuration file; the defaults apply\n")
                return ExitStatus.success
            }
            StandardStreams.error("usedspace: \(path): \(error)")
            return ExitStatus.failure
        }
        let problems = Configuration.check(text)
        guard problems.isEmpty, let configuration = try? Configuration.parse(text) else {
            let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            for problem in problems {
                StandardStreams.error("\(path):\(problem.position) \(problem.message)")
                // Where the column is known (a template), the line and a caret under it.
                if let column = problem.column, problem.line > 0, problem.line <= lines.count {
                    StandardStreams.error(caret(under: column, of: lines[problem.line - 1]))
                }
            }
            return ExitStatus.failure
        }
        StandardStreams.write("\(path): valid\n" + summary(configuration).map { "  " + $0 + "\n" }.joined())
        return ExitStatus.success
    }

    /// "    LINE\n    ^" with the caret under `column` (from 1); tabs are kept so that
    /// the caret lines up in a terminal, other control characters shown as "?".
    static func caret(under column: Int, of line: Substring) -> String {
        let shown = String((line.hasSuffix("\r") ? line.dropLast() : line).map { character -> Character in
            guard character != "\t", let scalar = character.unicodeScalars.first, ControlCharacters.isControl(scalar) else { return character }
            return "?"
        })
        let before = String(shown.prefix(max(column - 1, 0)).map { $0 == "\t" ? "\t" : " " })
        return "    " + shown + "\n    " + before + "^"
    }

    /// What the file amounts to, defaults included.
    static func summary(_ configuration: Configuration) -> [String] {
        let daemon = configuration.daemon
        let bar = configuration.bar
        var lines = [
            "watched paths: " + daemon.paths.joined(separator: ", "),
            "interval: \(DurationParser.describe(microseconds: daemon.intervalMicroseconds)), threshold: "
                + PercentText.oneDecimal(daemon.threshold, padded: false) + "% (\(daemon.threshold.numerator)/\(daemon.threshold.denominator))",
            "sample timeout: \(DurationParser.describe(microseconds: daemon.sampleTimeoutMicroseconds)), max clients: \(daemon.maximumClients)",
        ]
        if let directory = daemon.textfileDirectory { lines.append("Prometheus textfile: \(directory)/usedspace.prom") }
        if !bar.severity.warning.isEmpty { lines.append("warning at: " + bar.severity.warning.map(\.description).joined(separator: " or ")) }
        if !bar.severity.critical.isEmpty { lines.append("critical at: " + bar.severity.critical.map(\.description).joined(separator: " or ")) }
        if let command = bar.rightClickCommand { lines.append("right click runs: \(command)") }
        if let template = bar.templates.normal { lines.append("template: \(template.source)") }
        if bar.unit != .file { lines.append("sizes: \(bar.unit.rawValue)") }
        for section in configuration.filesystems {
            var settings = section.barEntries.map { "\($0.key) = \($0.value)" }
            if section.bar.hidden { settings.append("hidden") }
            if section.notify != configuration.notify { settings.append("own notification limits") }
            lines.append("[filesystem \(section.selector)]: " + (settings.isEmpty ? "as [bar]" : settings.joined(separator: ", ")))
        }
        return lines
    }
}

