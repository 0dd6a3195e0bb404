import UsedSpaceCore
import UsedSpaceSystem

/// `usedspace config check [--config FILE]`: validates the configuration file the daemon and
/// the bars read, reporting every problem with its line, as a compiler would.
enum ConfigCommand {
    static let help = """
        Usage: usedspace config check [--config FILE]

        Check the configuration file (default: $XDG_CONFIG_HOME/usedspace/config, usually
        ~/.config/usedspace/config) and report every problem as FILE:LINE: message: every
        mistake in it, and then what would fail when it runs: a watched path that does not
        exist or cannot be measured now, a Prometheus textfile directory that you, or
        usedspace.service in its sandbox, cannot write (and the drop-in that fixes it).
        A valid file is summed up section by section, defaults included. Exit status 0 when
        it is valid and nothing would fail (or there is no file: the defaults apply), 1 when
        it has problems. See usedspace.conf(5). Apply a valid file with:
        systemctl --user reload usedspace
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
        let home = ProcessEnvironment.homeDirectory
        let text: String
        do {
            text = try IsolatedFileRead.readText(path, limit: ConfigFile.maximumSize + 1, timeoutMicroseconds: 5_000_000)
        } catch {
            if error.isNotFound, explicitPath == nil {
                StandardStreams.write("\(path): no configuration file; the defaults apply\n"
                    + ConfigurationSummary.lines(Configuration(), sectionsInFile: [], home: home).map { "  " + $0 + "\n" }.joined())
                return ExitStatus.success
            }
            StandardStreams.error("usedspace: \(path): \(error)")
            return ExitStatus.failure
        }
        let problems = Configuration.check(text)
        guard problems.isEmpty, let configuration = try? Configuration.parse(text), let file = try? ConfigFile.parse(text) else {
            report(problems, in: path, text: text)
            return ExitStatus.failure
        }
        let sections = Set(file.entries.map { $0.section })
        let summary = ConfigurationSummary.lines(configuration, sectionsInFile: sections, home: home).map { "  " + $0 + "\n" }.joined()
        // Valid as written; what will still fail when it runs is a problem too.
        let runtime = RuntimeChecks.problems(configuration, file: file, home: home)
        if runtime.isEmpty {
            StandardStreams.write("\(path): valid\n" + summary)
            return ExitStatus.success
        }
        StandardStreams.write("\(path): valid, but \(runtime.count == 1 ? "one thing" : "\(runtime.count) things") will fail when it runs:\n" + summary)
        report(runtime, in: path, text: text)
        return ExitStatus.failure
    }

    /// FILE:LINE: message, or FILE:LINE:COLUMN: message and the line with a caret under the
    /// column where it is known (a template).
    private static func report(_ problems: [ConfigError], in path: String, text: String) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for problem in problems {
            StandardStreams.error("\(path):\(problem.position) \(problem.message)")
            if let column = problem.column, problem.line > 0, problem.line <= lines.count {
                StandardStreams.error(caret(under: column, of: lines[problem.line - 1]))
            }
        }
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
}

