import Foundation
import Testing

/// Every example command the README and the man pages show is run, as written, against a real
/// daemon, and what it prints is compared with the output they show, in shape: the same
/// lines, with any number, size or bar in place of theirs. A command that cannot run here
/// (it installs, or needs a user's systemd) must be named below with the test that covers it,
/// so that a new example cannot go unchecked.
@Suite(.serialized) struct DocumentedExamplesTests {
    static let repository = DocumentationTests.repository

    /// Commands shown in the docs that are run by other tests, by their first word(s).
    static let coveredElsewhere: [String: String] = [
        "swift": "CI runs the README's quick start on a fresh clone",
        "make": "MakeInstallTests, DebianPackageTests",
        "sudo apt": "DebianPackageTests",
        "sudo apt-get": ".ci/run installs these (Tests/Roots/runs-arch names them when missing)",
        "sudo make deb ARCH=arm64": "Tests/Roots/matrix, its arm64-deb cell (.ci/run runs the matrix)",
        "systemctl": "DaemonServiceTests, HardeningTests, MakeInstallTests",
        "journalctl": "DaemonServiceTests.logsStructuredEntriesToTheJournal",
        "rm": "MakeInstallTests (what uninstall keeps)",
        "prometheus-node-exporter": "ConfigAndMetricsTests (the exporter parses our textfile)",
        "gnome-extensions": "GnomeShellIdleCostTests runs docs/desktops.md's line as written, in a running GNOME Shell",
    ]

    /// An example: the command as written, and the output shown under it (possibly none).
    struct Example: CustomStringConvertible {
        var source: String
        var command: String
        var shownOutput: [String]
        var description: String { "\(source): \(command)" }
    }

    // MARK: - Reading the examples

    /// README (or another Markdown file): the lines of ```sh blocks (a trailing `# comment` is not part of the command,
    /// but a comment that looks like output is its shown output), and the block that opens
    /// with `$ command` followed by its output.
    static func readmeExamples(_ file: String = "README.md") throws -> [Example] {
        let text = try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
        var examples: [Example] = []
        var block: [String]?
        var fence = ""
        // A block in a list item is indented as the item's text: its lines lose that indent.
        var indent = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let unindented = line.drop { $0 == " " }
            if unindented.hasPrefix("```") {
                if let lines = block {
                    examples += Self.examples(in: lines, kind: fence, source: file)
                    block = nil
                } else {
                    block = []
                    fence = String(unindented.dropFirst(3))
                    indent = line.count - unindented.count
                }
            } else if block != nil {
                block!.append(String(line.dropFirst(min(indent, line.count - unindented.count))))
            }
        }
        return examples
    }

    static func examples(in lines: [String], kind: String, source: String) -> [Example] {
        if kind == "sh" {
            return lines.compactMap { line in
                guard !line.hasPrefix("#"), !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
                let parts = line.components(separatedBy: "  #")
                let command = parts[0].trimmingCharacters(in: .whitespaces)
                let comment = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                let looksLikeOutput = comment.hasPrefix("[") && comment.contains("%")
                return Example(source: source, command: command, shownOutput: looksLikeOutput ? [comment] : [])
            }
        }
        return dollarExamples(lines, source: source)
    }

    /// Lines `$ command` (a command ending in `|` or `\\` goes on on the next line), each
    /// followed by its output up to the next `$ ` line.
    static func dollarExamples(_ lines: [String], source: String) -> [Example] {
        var examples: [Example] = []
        var index = 0
        while index < lines.count {
            guard lines[index].hasPrefix("$ ") else { index += 1; continue }
            var command = String(lines[index].dropFirst(2))
            while command.hasSuffix("|") || command.hasSuffix("\\"), index + 1 < lines.count {
                if command.hasSuffix("\\") { command.removeLast() }
                index += 1
                command += " " + lines[index].trimmingCharacters(in: .whitespaces)
            }
            index += 1
            var output: [String] = []
            while index < lines.count, !lines[index].hasPrefix("$ ") {
                output.append(lines[index])
                index += 1
            }
            examples.append(Example(source: source, command: command, shownOutput: output))
        }
        return examples
    }

    /// Man pages: `.Dl $ command`, and `.Bd -literal` blocks with `$ ` lines, as mandoc
    /// renders them (so escapes such as the bar's cells are what a reader sees).
    static func manExamples(_ page: String) throws -> [Example] {
        let output = try CommandRunner.run("/usr/bin/mandoc", ["-Tutf8", repository.appendingPathComponent(page).path]).stdout
        let rendered = output.replacingOccurrences(of: ".\u{08}", with: "", options: .regularExpression)
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.drop(while: { $0 == " " }))
        }
        // Rendered, an example's output is indented like its command; end it at a blank line.
        var examples: [Example] = []
        var index = 0
        while index < lines.count {
            guard lines[index].hasPrefix("$ ") else { index += 1; continue }
            let start = index
            index += 1
            while index < lines.count, !lines[index].isEmpty, !lines[index].hasPrefix("$ ") { index += 1 }
            examples += dollarExamples(Array(lines[start..<index]), source: page)
        }
        return examples
    }

    // MARK: - Comparing shapes

    /// A regular expression for a shown line: numbers, sizes and bars of any value.
    static func shape(_ line: String) -> String {
        var pattern = NSRegularExpression.escapedPattern(for: line)
        pattern = pattern.replacingOccurrences(of: "[█░]+", with: "[█░]+", options: .regularExpression)
        pattern = pattern.replacingOccurrences(of: #"[0-9][0-9,]*(\\\.[0-9]+)?"#, with: "[0-9][0-9,]*(\\\\.[0-9]+)?", options: .regularExpression)
        pattern = pattern.replacingOccurrences(of: #"\b(bytes|KB|MB|GB|TB|PB)\b"#, with: "(bytes|KB|MB|GB|TB|PB)", options: .regularExpression)
        // A tab in the program's output is spaces in a rendered man page.
        // (A replacement template reads backslashes itself: four here make one there.)
        pattern = pattern.replacingOccurrences(of: "[ \t]+", with: "\\\\s+", options: .regularExpression)
        return "^" + pattern + "$"
    }

    static func matches(_ output: [String], shown: [String]) -> Bool {
        let expected = shown.filter { !$0.isEmpty }
        guard output.count >= expected.count else { return false }
        return zip(output, expected).allSatisfy { line, shownLine in
            line.range(of: shape(shownLine), options: .regularExpression) != nil
        }
    }

    // MARK: - Running them

    /// The daemon as a user runs it (the shipped units, socket-activated, in the user's
    /// manager), and the commands typed by that user in that session.
    final class Fixture {
        let runtime: ScratchDirectory
        let daemon: UserServiceDaemon
        var environment: [String: String]

        init() throws {
            runtime = try ScratchDirectory("examples-runtime")
            daemon = try UserServiceDaemon(config: "[daemon]\npath = ~\npath = /\n")
            try daemon.waitUntilAnswering()
            environment = daemon.manager.environment
            environment["PATH"] = "\(CommandRunner.productsDirectory.path):/usr/bin:/bin"
        }

        /// Runs a command line with /bin/sh, as the user would type it; a `watch` gives its
        /// first `lines` lines (at most 3) and is stopped.
        func run(_ command: String, lines: Int = 1) throws -> CommandResult {
            let session = daemon.manager.userCommand
            guard command.contains("usedspace watch") || command.contains("subscribe") else {
                return try CommandRunner.run(session.executable, session.arguments + ["/bin/sh", "-c", command], environment: environment, timeout: 30)
            }
            // It runs until stopped: the shell and its whole pipeline, in a process group of
            // their own, are stopped once it has printed the lines wanted (or has ended, or
            // 15 s have passed); what it printed by then is its output.
            // (SpawnedProcess, not Foundation's Process, which waits for every descendant to
            // close an inherited descriptor before it reaps anything.)
            let output = runtime.subpath("example-output")
            try? FileManager.default.removeItem(atPath: output)
            let shell = try SpawnedProcess(session.executable, session.arguments + ["/bin/sh", "-c", command], environment: environment,
                                           logFile: output, processGroup: true)
            let wanted = min(3, max(1, lines))
            _ = waitUntil(seconds: 15) {
                !shell.isRunning || ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").filter { $0 == "\n" }.count >= wanted
            }
            shell.signalGroup(SIGTERM)
            _ = waitUntil(seconds: 5) { !shell.isRunning }
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return CommandResult(status: 0, stdout: text.split(separator: "\n").prefix(3).joined(separator: "\n"), stderr: "")
        }
    }

    static func runnable(_ example: Example) -> Bool {
        example.command.hasPrefix("usedspace ") || example.command.hasPrefix("echo ") || example.command.hasPrefix("busctl --user ")
    }

    static func coverage(_ example: Example) -> String? {
        coveredElsewhere.first { example.command.hasPrefix($0.key + " ") || example.command == $0.key }?.value
    }

    @Test(Prerequisite.root, Prerequisite.enabled(UserServiceDaemon.available && Prerequisite.hasCommand("socat") && Prerequisite.hasCommand("jq")
                                                  && Prerequisite.hasCommand("mandoc"),
                                                  "needs systemd (a user manager and journald), useradd, setpriv, nsenter, socat, jq and mandoc"))
    func everyExampleCommandRunsAndPrintsWhatTheDocsShow() throws {
        let examples = try Self.readmeExamples() + Self.readmeExamples("docs/desktops.md")
            + Self.manExamples("man/usedspace.1") + Self.manExamples("man/usedspaced.8")
        #expect(examples.count >= 12, "\(examples)")
        let fixture = try Fixture()
        var ran = 0
        for example in examples {
            guard Self.runnable(example) else {
                #expect(Self.coverage(example) != nil, "an example nothing runs: \(example)")
                continue
            }
            let result = try fixture.run(example.command, lines: example.shownOutput.filter { !$0.isEmpty }.count)
            ran += 1
            #expect(result.status == 0 || example.command.contains("watch") || example.command.contains("subscribe"),
                    "\(example) exited \(result.status): \(result.stderr)")
            let output = result.stdout.split(separator: "\n").map(String.init)
            #expect(!output.isEmpty, "\(example) printed nothing: \(result.stderr)")
            if !example.shownOutput.isEmpty {
                #expect(Self.matches(output, shown: example.shownOutput), "\(example)\nshown:\n\(example.shownOutput.joined(separator: "\n"))\nprinted:\n\(output.joined(separator: "\n"))")
            }
            // A frame says how many lines follow: the shown one must have them all.
            if let header = example.shownOutput.first, header.hasPrefix("ok "), let count = Int(header.dropFirst(3)) {
                #expect(example.shownOutput.filter { !$0.isEmpty }.count == count + 1, "\(example): '\(header)' then \(example.shownOutput.count - 1) lines shown")
            }
            if example.command.contains("jq .used_percent") {
                #expect(Int(output.first ?? "") != nil, "\(output)")
            }
            if example.command.contains("--format json") && !example.command.contains("jq") {
                let object = try? JSONSerialization.jsonObject(with: Data((output.first ?? "").utf8)) as? [String: Any]
                #expect(object?["used_percent"] is Int, "\(output)")
            }
        }
        print("measured: \(ran) documented commands run, \(examples.count - ran) covered by other tests")
    }

    /// The README's example configuration, as written, with the drop-in it names: valid, and
    /// nothing in it fails when it runs.
    @Test(Prerequisite.enabled(FileManager.default.fileExists(atPath: "/var/lib/prometheus/node-exporter"),
                               "needs the node exporter's textfile directory (apt-get install prometheus-node-exporter)"))
    func theReadmeConfigurationChecksCleanWithTheDropInItNames() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(text.range(of: "```ini\n"))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let configuration = String(text[start.upperBound..<end.lowerBound])
        let directory = try ScratchDirectory("readme-config")
        let file = directory.subpath("config")
        try configuration.write(toFile: file, atomically: true, encoding: .utf8)
        let environment = ["HOME": userHome, "XDG_CONFIG_HOME": directory.subpath("xdg")]
        let before = try CommandRunner.run(CommandRunner.usedspace, ["config", "check", "--config", file], environment: environment)
        #expect(before.status == 1 && before.stderr.contains("ReadWritePaths=/var/lib/prometheus/node-exporter"), "\(before.stderr)")
        // The drop-in, as the comment in the file says.
        let dropIn = directory.subpath("xdg/systemd/user/usedspace.service.d")
        try FileManager.default.createDirectory(atPath: dropIn, withIntermediateDirectories: true)
        let lines = configuration.split(separator: "\n").filter { $0.hasPrefix("#   ") }.map { $0.dropFirst(4) }
        try (lines.joined(separator: "\n") + "\n").write(toFile: dropIn + "/override.conf", atomically: true, encoding: .utf8)
        let after = try CommandRunner.run(CommandRunner.usedspace, ["config", "check", "--config", file], environment: environment)
        #expect(after.status == 0, "\(after.stdout)\(after.stderr)")
    }
}

