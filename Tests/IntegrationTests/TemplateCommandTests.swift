import Foundation
import Testing

/// Templates, per-filesystem settings and the command line's habits, in the built binary as
/// a user runs it.
@Suite struct TemplateCommandTests {
    static func environment(_ directory: ScratchDirectory) -> [String: String] {
        ["USEDSPACE_SOCKET": directory.subpath("none.sock"), "HOME": userHome, "PATH": "/usr/bin:/bin",
         "XDG_CONFIG_HOME": directory.subpath("config")]
    }

    static func usedspace(_ arguments: [String], _ environment: [String: String]) throws -> CommandResult {
        try CommandRunner.run(CommandRunner.usedspace, arguments, environment: environment)
    }

    @Test func configCheckPointsAtTheCharacterOfABadTemplate() throws {
        let directory = try ScratchDirectory("template-check")
        let file = directory.subpath("config")
        try "[bar]\nwarn = 80%\ntemplate = {label}{fre:iec} free\n\n[filesystem /data]\n\ttemplate-critical=\"{free:iec:.9}\"\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let result = try Self.usedspace(["config", "check", "--config", file], Self.environment(directory))
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count >= 6, "\(result.stderr)")
        guard lines.count >= 6 else { return }
        #expect(lines[0].hasPrefix("\(file):3:20: template: unknown placeholder {fre} (did you mean {free}?)"), "\(lines[0])")
        #expect(lines[1] == "    template = {label}{fre:iec} free")
        #expect(lines[2] == "                       ^", "the caret is under the 'f' of {fre}")
        #expect(lines[3].hasPrefix("\(file):6:31: template-critical: '.9': the precision is a number from 0 to 3"), "\(lines[3])")
        #expect(lines[4] == "    \ttemplate-critical=\"{free:iec:.9}\"")
        #expect(lines[5] == "    \t" + String(repeating: " ", count: 29) + "^", "a tab stays a tab above and below")
        // The same mistake on the command line: exit 2, one line, naming the option.
        let option = try Self.usedspace(["status", "--template", "{label}{fre:iec}"], Self.environment(directory))
        #expect(option.status == 2 && option.stderrLines.count == 1)
        #expect(option.stderr.contains("invalid value '{label}{fre:iec}' for '--template': unknown placeholder {fre}"), "\(option.stderr)")
        #expect(option.stdout.isEmpty, "an unknown placeholder is never printed")
    }

    @Test func statusTakesEveryBarOptionWatchTakes() throws {
        let directory = try ScratchDirectory("status-bar-options")
        let status = try Self.usedspace(["status", "--help"], Self.environment(directory)).stdout
        let watch = try Self.usedspace(["watch", "--help"], Self.environment(directory)).stdout
        // Not bar options: sampling, the follower, and usedspace click's --pid named in the examples.
        let onlyWatch: Set = ["--interval", "--name", "--bar-pid", "--pid"]
        for option in DocumentationTests.options(inHelp: watch).subtracting(onlyWatch) {
            #expect(status.contains(option), "status --help lacks \(option)")
        }
        // Was an error before: a bar format of status with limits, and every format.
        let environment = Self.environment(directory)
        let polybar = try Self.usedspace(["status", "--format", "polybar", "--warn", "80%", "--critical", "0%"], environment)
        #expect(polybar.status == 0, "\(polybar.stderr)")
        #expect(polybar.stdout.hasPrefix("%{F#FF0000}"), "critical from 0% on: \(polybar.stdout)")
        for format in ["text", "json", "i3bar", "i3blocks", "waybar"] {
            let result = try Self.usedspace(["status", "--format", format, "--template", "({used_percent}%)", "--hide-below", "0%"], environment)
            #expect(result.status == 0 && result.stdout.contains("%)"), "\(format): \(result.stdout) \(result.stderr)")
        }
    }

    @Test func shortOptionsCombineAndDoubleDashEndsOptions() throws {
        let directory = try ScratchDirectory("short-options")
        let environment = Self.environment(directory)
        let long = try Self.usedspace(["status", "--details", "--path", "/", "--format", "text", "--bar-width", "4"], environment)
        try #require(long.status == 0)
        for arguments in [["-dp/", "-ftext", "--bar-width=4"], ["-df", "text", "-p", "/", "--bar-width", "4"], ["-d", "-p/", "-f", "text", "--bar-width", "4"]] {
            let short = try Self.usedspace(["status"] + arguments, environment)
            #expect(short.status == 0, "\(arguments): \(short.stderr)")
            // Inode counts may move between the two runs; the bar and Total cannot.
            #expect(short.stdout.split(separator: "\n").filter { $0.hasPrefix("Total") || $0.hasPrefix("[") }
                    == long.stdout.split(separator: "\n").filter { $0.hasPrefix("Total") || $0.hasPrefix("[") }, "\(arguments)")
        }
        let ended = try Self.usedspace(["status", "--", "-d"], environment)
        #expect(ended.status == 2 && ended.stderr.contains("unexpected argument '-d'"), "\(ended.stderr)")
        let unknown = try Self.usedspace(["status", "-dz"], environment)
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown option '-z'"), "\(unknown.stderr)")
    }

    @Test(arguments: [
        (["click"], "option 'BUTTON' of 'usedspace click' needs a value"),
        (["click", "double"], "invalid value 'double' for 'BUTTON': the buttons are left, middle, right and 1 to 5"),
        (["click", "left", "--pid", "abc"], "invalid value 'abc' for '--pid': not a process id"),
        (["click", "left", "--pid", "1"], "invalid value '1' for '--pid'"),
        (["click", "left", "extra"], "unexpected argument 'extra'"),
        (["watch", "--bar-pid", "42"], "--bar-pid and --signal go together"),
        (["status", "--signal", "31", "-f", "i3blocks"], "i3blocks' signal is a number from 1 to 30"),
        (["watch", "--name", ""], "a name is 1 to 64 characters"),
    ])
    func badClickCommandLinesExitTwo(_ arguments: [String], _ message: String) throws {
        let directory = try ScratchDirectory("click-usage")
        let result = try Self.usedspace(arguments, Self.environment(directory))
        #expect(result.status == 2 && result.stderrLines.count == 1 && result.stderr.contains(message), "\(result.stderr)")
    }

    /// A click reaches the watch under the given process, and only it; none is an error.
    @Test func aClickByPidReachesThatWatchOnly() throws {
        let directory = try ScratchDirectory("click-pid")
        var environment = Self.environment(directory)
        environment["XDG_RUNTIME_DIR"] = directory.path
        let one = try WatchProcess(["--format", "polybar", "--interval", "200ms"], environment: environment)
        let two = try WatchProcess(["--format", "polybar", "--interval", "200ms"], environment: environment)
        try one.waitForLine()
        try two.waitForLine()
        let click = try Self.usedspace(["click", "left", "--pid", "\(one.process.processIdentifier)"], environment)
        #expect(click.status == 0, "\(click.stderr)")
        #expect(try one.waitForLine(after: 1).contains("Used: "))
        // An observation window, once the click has reached `one`: the other watch shows no
        // details (it may print a new percentage: its filesystem is this machine's).
        usleep(500_000)
        #expect(!two.lines.contains { $0.contains("Used: ") }, "the other watch got the click: \(two.lines)")
        let none = try Self.usedspace(["click", "left", "--pid", "\(getpid())0"], environment)
        #expect(none.status == 1 && none.stderr.contains("no usedspace watch"), "\(none.stderr)")
    }

    /// Two watched paths on one filesystem, one with settings of its own: told apart in
    /// the labels and the details' headings; a hidden one is not shown.
    @Test func filesystemSectionsApplyToTheirPathOnly() throws {
        let directory = try ScratchDirectory("filesystem-sections")
        let one = directory.subpath("one"), two = directory.subpath("two"), three = directory.subpath("three")
        for path in [one, two, three] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        let config = directory.subpath("config/usedspace/config")
        try FileManager.default.createDirectory(atPath: directory.subpath("config/usedspace"), withIntermediateDirectories: true)
        try """
            [daemon]
            path = \(one)
            path = \(two)
            path = \(three)
            [bar]
            template = {label}{used_percent}%
            [filesystem \(two)]
            label = "second "
            template = {label}{free:bytes}B free
            template-details = In {path}
            [filesystem \(three)]
            hidden = yes
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let result = try Self.usedspace(["status", "--all", "--format", "waybar"], Self.environment(directory))
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let text = try #require(object["text"] as? String)
        #expect(text.hasPrefix(one + " ") && text.contains("%  second ") && text.contains("B free"), "\(text)")
        #expect(!text.contains(three), "hidden: \(text)")
        let tooltip = try #require(object["tooltip"] as? String)
        // On one mount point, each is headed by its path, not the mount point they share.
        #expect(tooltip.contains(one + ":\n") && tooltip.contains(two + ":\n  In " + two), "\(tooltip)")
        // The text format reads no configuration: the defaults, led by each path.
        let plain = try Self.usedspace(["status", "--all"], Self.environment(directory))
        #expect(plain.stdout.split(separator: "\n").count == 3 && plain.stdout.contains("%") && !plain.stdout.contains("B free"), "\(plain.stdout)")
    }

    /// A bare status shows the home directory's filesystem whether or not the daemon runs
    /// and whatever the daemon's first path is. The daemon runs as users run it
    /// (UserServiceDaemon: socket-activated under the shipped unit in the user's manager), the
    /// client as that user: `~` is the user's home.
    @Test(Prerequisite.root, Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
    func aBareStatusShowsTheHomeDirectoryWithOrWithoutTheDaemon() throws {
        let directory = try ScratchDirectory("bare-status")
        func status(_ daemon: UserServiceDaemon, _ arguments: [String] = []) throws -> [String: Any] {
            let result = try daemon.usedspace(["status", "-f", "json"] + arguments)
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\(result.stderr)")
        }
        // One user manager at a time: the first is let go before the second is taken.
        do {
            let daemon = try UserServiceDaemon(arguments: ["--path", directory.path, "--interval", "200ms"])
            let home = URL(fileURLWithPath: daemon.home).resolvingSymlinksInPath().path
            try daemon.waitUntilAnswering()
            let first = try status(daemon)
            #expect(first["path"] as? String == home, "the home directory, not the daemon's first path \(directory.path)")
            #expect(first["source"] as? String == "direct", "the daemon does not watch it")
            let watched = try status(daemon, ["-p", directory.path])
            #expect(watched["source"] as? String == "daemon")
            #expect(daemon.stop() == 0, "\(daemon.serviceState); \(daemon.log.value)")
            // Without the daemon: its socket stopped too (else the next client starts it again).
            try daemon.stopSocket()
            let after = try status(daemon)
            #expect(after["path"] as? String == home)
        }

        let homeDaemon = try UserServiceDaemon(arguments: ["--path", directory.path, "--path", "~", "--interval", "200ms"])
        let home = URL(fileURLWithPath: homeDaemon.home).resolvingSymlinksInPath().path
        try homeDaemon.waitUntilAnswering()
        let served = try status(homeDaemon)
        #expect(served["path"] as? String == home && served["source"] as? String == "daemon", "\(served)")
    }

    /// In a terminal narrower than the line, the bar gives up cells; the line never wraps.
    @Test(Prerequisite.enabled(Prerequisite.hasCommand("script") && Prerequisite.hasCommand("stty"), "needs script and stty (util-linux, coreutils)"))
    func theTextLineFitsANarrowTerminal() throws {
        let directory = try ScratchDirectory("narrow")
        let environment = Self.environment(directory)
        func inTerminal(columns: Int, _ arguments: String) throws -> String {
            let command = "stty cols \(columns); \(CommandRunner.usedspace) status --no-daemon \(arguments)"
            let result = try CommandRunner.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment)
            return result.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n").first.map(String.init) ?? ""
        }
        let wide = try inTerminal(columns: 80, "")
        #expect(wide.count == 29, "22 for the bar, 7 for the percentage: \(wide)")
        let narrow = try inTerminal(columns: 16, "")
        #expect(narrow.count == 16 && narrow.hasPrefix("[") && narrow.hasSuffix("%"), "\(narrow.debugDescription)")
        let tiny = try inTerminal(columns: 5, "")
        #expect(tiny.count == 5, "\(tiny.debugDescription)")
        // Not a terminal: the line as asked.
        let piped = try Self.usedspace(["status", "--no-daemon", "--bar-width", "40", "--bar-glyphs", "ascii"], environment)
        #expect(piped.stdout.hasPrefix("[") && piped.stdout.split(separator: "\n")[0].count == 49 && !piped.stdout.contains("█"), "\(piped.stdout)")
    }
}
