import Foundation
import Testing

/// The man pages and the install target are part of what users get: they are checked here.
@Suite struct DocumentationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let manPages = ["man/usedspace.1", "man/usedspaced.8", "man/usedspace.conf.5"]

    /// A man page as plain text (overstrike bold and underline removed).
    static func rendered(_ page: String) throws -> String {
        let output = try CommandRunner.run("/usr/bin/mandoc", ["-Tascii", repository.appendingPathComponent(page).path]).stdout
        return output.replacingOccurrences(of: ".\u{08}", with: "", options: .regularExpression)
    }

    static func options(inHelp text: String) -> Set<String> {
        Set(text.matches(of: /--[a-z][a-z-]+/).map { String($0.output) })
    }

    @Test(Prerequisite.enabled(Prerequisite.hasCommand("mandoc"), "needs mandoc"), arguments: manPages)
    func manPagesAreLintClean(_ page: String) throws {
        // Every message down to STYLE, except two about the machine rather than the page:
        // which of the pages it refers to are installed (ours are not while they are
        // linted; minimal systems install none), and whether the system's mandoc.db is
        // older than its man pages.
        let result = try CommandRunner.run("/usr/bin/mandoc", ["-Tlint", "-Wstyle", Self.repository.appendingPathComponent(page).path])
        let messages = (result.stdout + result.stderr).split(separator: "\n").filter { line in
            !(line.contains("referenced manual not found") || line.contains("outdated mandoc.db"))
        }
        #expect(messages.isEmpty, "\(messages.joined(separator: "\n"))")
    }

    @Test(Prerequisite.enabled(Prerequisite.hasCommand("mandoc"), "needs mandoc"))
    func everyOptionInTheHelpIsInTheManPages() throws {
        let client = try Self.rendered("man/usedspace.1")
        for command in [["status", "--help"], ["watch", "--help"], ["list", "--help"]] {
            let help = try CommandRunner.run(CommandRunner.usedspace, command).stdout
            for option in Self.options(inHelp: help) {
                #expect(client.contains(option), "usedspace(1) does not mention \(option)")
            }
        }
        let daemon = try Self.rendered("man/usedspaced.8")
        for option in Self.options(inHelp: try CommandRunner.run(CommandRunner.usedspaced, ["--help"]).stdout) {
            #expect(daemon.contains(option), "usedspaced(8) does not mention \(option)")
        }
    }

    static func text(_ file: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
    }

    /// The reference material is in docs/ (the package installs every docs/*.md in
    /// /usr/share/doc/usedspace/docs/): every document a man page names is there.
    @Test(arguments: manPages)
    func theDocumentsAManPageNamesExist(_ page: String) throws {
        let names = Set(try Self.text(page).matches(of: /([A-Za-z0-9_-]+)\.md\b/).map { String($0.output.0) })
        #expect(page != "man/usedspace.1" || names.isSuperset(of: ["output.md", "json.md", "templates.md", "list.md"]), "\(names)")
        for name in names {
            #expect(FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent("docs/" + name).path), "\(page) names docs/\(name)")
        }
    }

    /// Every relative link of the README and of docs/*.md leads to a file of the repository.
    @Test func theMarkdownLinksResolve() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        for file in ["README.md"] + docs {
            let directory = Self.repository.appendingPathComponent(file).deletingLastPathComponent()
            for link in try Self.text(file).matches(of: /\]\(([^)#:\s]+)(#[^)]*)?\)/) {
                let target = directory.appendingPathComponent(String(link.output.1)).path
                #expect(FileManager.default.fileExists(atPath: target), "\(file): \(link.output.0)")
            }
        }
    }

    /// Every document and every file of the repository that the code, the tests, the scripts
    /// and the docs cite exists: a bare document name ("json.md", found anywhere in the
    /// repository) or a path from its top ("docs/dbus.md", "Sources/CLinux/Rounding.c:41",
    /// "Tests/Roots/make-root"). A citation in a comment is a promise to a reader too.
    @Test func everyCitedDocumentAndFileExists() throws {
        let files = try Self.repositoryFiles()
        let documents = Set(files.filter { $0.hasSuffix(".md") }.map { ($0 as NSString).lastPathComponent })
        // Written by the bench scripts into their output directory, not kept here.
        let generated: Set<String> = ["summary.md"]
        let tops = ["Sources", "Tests", "docs", "desktop", "bench", "packaging", "man", "systemd", "link", "Fuzz",
                    "completions", "dbus", "make", ".ci"]
        // (ICU's expressions: Swift's own have no lookbehind.)
        let document = try NSRegularExpression(pattern: "(?<![\\w/.-])([A-Za-z0-9_-]+\\.md)\\b")
        let path = try NSRegularExpression(pattern: "(?<![\\w/.<$-])((?:" + tops.map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
                                           + ")/[A-Za-z0-9_./@+-]*[A-Za-z0-9_])")
        let lineNumber = try NSRegularExpression(pattern: ":\\d+(–\\d+)?$")
        func found(_ expression: NSRegularExpression, in text: String) -> [String] {
            expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
                Range($0.range(at: 1), in: text).map { String(text[$0]) }
            }
        }
        var missing: [String] = []
        for file in files where !Self.binary(file) {
            guard let text = try? Self.text(file) else { continue }
            for name in found(document, in: text) where !documents.contains(name) && !generated.contains(name) {
                missing.append("\(file): \(name)")
            }
            for cited in found(path, in: text) {
                let relative = lineNumber.stringByReplacingMatches(in: cited, range: NSRange(cited.startIndex..., in: cited), withTemplate: "")
                if !FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent(relative).path) {
                    missing.append("\(file): \(relative)")
                }
            }
        }
        #expect(missing.isEmpty, "cited, and not in the repository: \(missing)")
    }

    /// The repository's own files (what git tracks, or else what is there but builds).
    static func repositoryFiles() throws -> [String] {
        let listed = try? CommandRunner.run("/usr/bin/git", ["-C", repository.path, "ls-files"])
        if let listed, listed.status == 0, !listed.stdout.isEmpty {
            return listed.stdout.split(separator: "\n").map(String.init)
        }
        guard let walker = FileManager.default.enumerator(atPath: repository.path) else { return [] }
        var files: [String] = []
        while let path = walker.nextObject() as? String {
            if path.hasPrefix(".build") || path.hasPrefix(".git") { walker.skipDescendants(); continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: repository.appendingPathComponent(path).path, isDirectory: &isDirectory),
               !isDirectory.boolValue { files.append(path) }
        }
        return files
    }

    static func binary(_ file: String) -> Bool {
        [".png", ".so", ".gz"].contains { file.hasSuffix($0) } || file.contains("/Corpus/")
    }

    /// Every key the JSON output can have (the renderers' source, nested objects included)
    /// is described in docs/json.md, and so is every key of the contract.
    @Test func everyJSONKeyIsInTheJSONReference() throws {
        let reference = try Self.text("docs/json.md")
        var keys: Set<String> = ["path", "mountpoint", "fstype", "total_bytes", "used_bytes", "free_bytes", "reserved_bytes", "used_rate",
                                 "used_percent", "seq", "sampled_at", "state", "source", "error"]
        for file in ["Sources/UsedSpaceCore/Rendering/JSONRenderer.swift", "Sources/UsedSpaceCore/Rendering/SpaceDetailsJSON.swift"] {
            keys.formUnion(try Self.text(file).matches(of: /\.add(?:Raw)?\("([a-z_]+)"/).map { String($0.output.1) })
        }
        #expect(keys.count > 30, "\(keys)")
        for key in keys {
            #expect(reference.contains("`\(key)`"), "docs/json.md does not describe \(key)")
        }
    }

    /// Every metric of the Prometheus textfile (the renderers' source) is in docs/prometheus.md,
    /// where usedspaced(8) sends the reader.
    @Test func everyMetricIsInThePrometheusReference() throws {
        let reference = try Self.text("docs/prometheus.md")
        var metrics: Set<String> = []
        for file in ["Sources/UsedSpaceCore/Metrics/PrometheusTextRenderer.swift", "Sources/UsedSpaceCore/Metrics/PrometheusSpaceDetails.swift"] {
            metrics.formUnion(try Self.text(file).matches(of: /Family\(name: "(usedspace_[a-z_]+)"/).map { String($0.output.1) })
        }
        #expect(metrics.count > 20, "\(metrics)")
        for metric in metrics {
            #expect(reference.contains("`\(metric)"), "docs/prometheus.md does not describe \(metric)")
        }
    }

    /// Every placeholder the template parser knows (as its error message lists them) is in
    /// usedspace(1)'s TEMPLATES and described in docs/templates.md.
    @Test(Prerequisite.enabled(Prerequisite.hasCommand("mandoc"), "needs mandoc"))
    func everyPlaceholderIsDocumented() throws {
        let result = try CommandRunner.run(CommandRunner.usedspace, ["status", "--no-daemon", "--template", "{no_such_placeholder}"])
        let list = try #require(result.stderr.firstMatch(of: /the placeholders are ([a-z_, ]+)/)?.output.1, "\(result.stderr)")
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(names.count > 15, "\(names)")
        let page = try Self.rendered("man/usedspace.1")
        let start = try #require(page.range(of: "\nTEMPLATES\n"))
        let templates = page[start.upperBound...].prefix(1500)
        let reference = try Self.text("docs/templates.md")
        for name in names {
            #expect(templates.contains(name), "usedspace(1) TEMPLATES does not name \(name)")
            #expect(reference.contains("{\(name)}"), "docs/templates.md does not describe {\(name)}")
        }
    }

    /// `make install` into a user prefix, then a real user manager finds the units there and
    /// socket activation starts the installed daemon.
    @Test(Prerequisite.enabled(SystemdUserManager.available && Prerequisite.hasCommand("make"), "needs root, systemd and make"))
    func aUserInstallIsFoundByTheUserManager() throws {
        let manager = try SystemdUserManager()
        let prefix = manager.directory + "/home/.local"
        let make = try CommandRunner.run("/usr/bin/make", [
            "-C", Self.repository.path, "install", "PREFIX=\(prefix)", "USERUNITDIR=\(manager.environment["XDG_DATA_HOME"]!)/systemd/user",
            "BUILDDIR=\(CommandRunner.productsDirectory.path)",
        ])
        #expect(make.status == 0, "\(make.stderr)")
        for file in ["bin/usedspace", "bin/usedspaced", "share/man/man1/usedspace.1", "share/man/man8/usedspaced.8", "share/man/man5/usedspace.conf.5"] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file)")
        }
        #expect(try manager.systemctl("daemon-reload").status == 0)
        #expect(try manager.systemctl("enable", "--now", "usedspace.socket").status == 0)
        let status = try CommandRunner.run(prefix + "/bin/usedspace", ["status", "--format", "json"], environment: manager.environment)
        #expect(status.stdout.contains("\"source\":\"daemon\""), "\(status.stdout)\(status.stderr)")
        #expect(try manager.property("usedspace.service", "ExecMainPID") != "0")
        let exec = try manager.property("usedspace.service", "ExecStart")
        #expect(exec.contains(prefix + "/bin/usedspaced"))
    }
}
