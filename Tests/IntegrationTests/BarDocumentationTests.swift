import Foundation
import Testing

/// The documentation of templates, per-filesystem sections and bars works verbatim: every
/// configuration in usedspace.conf(5), the README and docs/status-bars.md is valid as
/// written for `config check`, and the template examples of usedspace(1) run and print
/// what they say. (DocumentedExamplesTests runs every example against a daemon.)
@Suite struct BarDocumentationTests {
    static let repository = DocumentationTests.repository

    /// The ```ini blocks of a Markdown file.
    static func iniBlocks(_ file: String) throws -> [String] {
        let text = try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
        return text.components(separatedBy: "```ini\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
    }

    /// The literal displays (`.Bd -literal` … `.Ed`) of a section of a man page, as mandoc
    /// renders them in UTF-8 (a reader's terminal shows ▁▃▅▇, not ASCII stand-ins).
    static func manDisplays(_ page: String, section: String) throws -> [String] {
        let output = try CommandRunner.run("/usr/bin/mandoc", ["-Tutf8", repository.appendingPathComponent(page).path]).stdout
        let rendered = output.replacingOccurrences(of: ".\u{08}", with: "", options: .regularExpression)
        guard let start = rendered.range(of: "\n" + section + "\n") else { return [] }
        let lines = rendered[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        var displays: [String] = []
        var current: [String] = []
        func finish() {
            while current.last == "" { current.removeLast() }
            if !current.isEmpty { displays.append(current.joined(separator: "\n")) }
            current = []
        }
        for line in lines {
            if !line.isEmpty && !line.hasPrefix(" ") { break }
            // Displays are indented deeper than the text around them (mandoc: 11 blanks);
            // a blank line inside one belongs to it.
            if line.hasPrefix("           ") {
                current.append(String(line.dropFirst(11)))
            } else if line.isEmpty && !current.isEmpty {
                current.append("")
            } else {
                finish()
            }
        }
        finish()
        return displays
    }

    static func check(_ text: String, from origin: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = try ScratchDirectory("documented-config")
        let file = directory.subpath("config")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(CommandRunner.usedspace, ["config", "check", "--config", file])
        // Valid as written. What config check also finds that would fail on this machine
        // (a /data that is not there, the textfile directory's drop-in) is DocumentedExamplesTests'.
        #expect(result.stdout.hasPrefix(file + ": valid"), "\(origin): \(result.stderr)\n\(text)", sourceLocation: sourceLocation)
    }

    @Test func theConfigurationsOfTheMarkdownDocsAreValid() throws {
        for file in ["README.md", "docs/status-bars.md"] {
            let blocks = try Self.iniBlocks(file)
            #expect(!blocks.isEmpty, "\(file) has no ini block")
            // Only the blocks that are usedspace's configuration: the others are the bars'.
            let ours = ["daemon", "bar", "notify", "prometheus", "filesystem"]
            for block in blocks where block.split(separator: "\n").filter({ $0.hasPrefix("[") }).allSatisfy({ header in
                ours.contains { header.dropFirst().hasPrefix($0) }
            }) {
                try Self.check(block, from: file)
            }
        }
    }

    @Test(Prerequisite.enabled(Prerequisite.hasCommand("mandoc"), "needs mandoc"))
    func theConfigurationOfTheManPageIsValid() throws {
        let displays = try Self.manDisplays("man/usedspace.conf.5", section: "EXAMPLES")
        try #require(displays.count == 1, "\(displays)")
        #expect(displays[0].contains("[filesystem /data]"))
        try Self.check(displays[0], from: "usedspace.conf(5)")
    }

    /// Each "$ usedspace …" line of usedspace(1)'s EXAMPLES, run by /bin/sh with the built
    /// binary first on PATH; the template examples print what they say they print, in form.
    @Test(Prerequisite.enabled(Prerequisite.hasCommand("mandoc") && Prerequisite.hasCommand("jq"), "needs mandoc and jq"))
    func theCommandsOfTheManPageRun() throws {
        let displays = try Self.manDisplays("man/usedspace.1", section: "EXAMPLES")
        let commands = displays.flatMap { $0.split(separator: "\n") }.filter { $0.hasPrefix("$ ") }.map { String($0.dropFirst(2)) }
        #expect(commands.count >= 4, "\(commands)")
        let directory = try ScratchDirectory("documented-commands")
        let environment = ["PATH": CommandRunner.productsDirectory.path + ":/usr/bin:/bin", "HOME": userHome,
                           "USEDSPACE_SOCKET": directory.subpath("none.sock"), "XDG_CONFIG_HOME": directory.subpath("config")]
        // Without mounts that may hang, other people's or another suite's (`list` would say
        // so, and fail).
        for command in commands {
            let isolated = ForeignMounts.isolated(["/bin/sh", "-c", command], alone: true)
            let result = try CommandRunner.run(isolated[0], Array(isolated.dropFirst()), environment: environment)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(command): \(result.stderr)")
            if command.contains("free of") {
                #expect(result.stdout.wholeMatch(of: /[0-9.]+[KMGTPE]? free of [0-9.]+[KMGTPE]?\n/) != nil, "\(command): \(result.stdout)")
            }
            if command.contains("{percent:.2}") {
                #expect(result.stdout.wholeMatch(of: /[0-9]+\.[0-9]{2}\n/) != nil, "\(command): \(result.stdout)")
            }
        }
        // The bar block of the examples, one update of it.
        let block = displays.first { $0.contains("--template-warning") }
        let line = try #require(block).replacingOccurrences(of: "\\\n", with: " ").replacingOccurrences(of: "watch", with: "status")
        let isolated = ForeignMounts.isolated(["/bin/sh", "-c", line], alone: true)
        let result = try CommandRunner.run(isolated[0], Array(isolated.dropFirst()), environment: environment)
        #expect(result.status == 0 && result.stdout.contains("full_text"), "\(line): \(result.stderr)")
    }
}
