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
