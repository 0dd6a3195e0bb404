import Foundation
import Testing

/// `usedspace config check`, and the Prometheus textfile checked by Prometheus's own tools.
@Suite struct ConfigAndMetricsTests {
    @Test func configCheckReportsEveryProblemWithItsLine() throws {
        let directory = try ScratchDirectory("config-check")
        let file = directory.subpath("config")
        try "[daemon]\nintervall = 5s\npath = relative\ninterval = 2s\n[bar]\ncolor-warning = yellow\n[nope]\nx = 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(CommandRunner.usedspace, ["config", "check", "--config", file])
        #expect(result.status == 1)
        #expect(result.stderrLines.map(String.init) == [
            "\(file):2: unknown key 'intervall' in [daemon]; the keys are path, interval, threshold, sample-timeout, max-clients, idle-timeout",
            "\(file):3: path: 'relative' must be an absolute path, start with ~/, or be auto (every real filesystem mounted)",
            "\(file):6: color-warning: 'yellow' is not a colour such as #FF0000 (or none)",
            "\(file):8: unknown section [nope]; the sections are [daemon], [bar], [notify], [prometheus], [filesystem PATH]",
        ])
    }

    @Test func configCheckSummarisesAValidFileSectionBySection() throws {
        let directory = try ScratchDirectory("config-valid")
        let data = try directory.mountTmpfs(at: "data", options: "size=4m")
        let file = directory.subpath("config")
        try "[daemon]\npath = ~\npath = \(data)\ninterval = 2s\nthreshold = 0.1%\n[bar]\nwarn = 80%\ncritical = 5GB\n[notify]\nfree-size-below = 2GiB\nsnooze = 1h\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let environment = ["HOME": userHome, "XDG_CONFIG_HOME": directory.subpath("xdg")]
        let result = try CommandRunner.run(CommandRunner.usedspace, ["config", "check", "--config", file], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(file): valid")
        // Every section, the ones the file leaves out too, with the threshold as written.
        #expect(lines.dropFirst().map { $0.split(separator: " ").first.map(String.init) ?? "" } == ["[daemon]", "[bar]", "[notify]", "[prometheus]"])
        #expect(result.stdout.contains("watches ~ (\(userHome)), \(data); samples every 2 s and publishes when the used share moves by 0.1%"))
        #expect(result.stdout.contains("critical at 5 GB free"))
        #expect(result.stdout.contains("at most 2 GiB are free") && result.stdout.contains("Ignore snoozes for 1 h"))
        #expect(result.stdout.contains("[prometheus] (defaults) no textfile"))

        let absent = try CommandRunner.run(CommandRunner.usedspace, ["config", "check"], environment: ["XDG_CONFIG_HOME": directory.subpath("none"), "HOME": "/root"])
        #expect(absent.status == 0 && absent.stdout.contains("no configuration file; the defaults apply") && absent.stdout.contains("[daemon] (defaults) watches ~ (/root)"))
        let missing = try CommandRunner.run(CommandRunner.usedspace, ["config", "check", "--config", directory.subpath("missing")])
        #expect(missing.status == 1 && missing.stderr.contains("No such file or directory"))
        let huge = directory.subpath("huge")
        try String(repeating: "# padding\n", count: 10_000).write(toFile: huge, atomically: true, encoding: .utf8)
        let tooBig = try CommandRunner.run(CommandRunner.usedspace, ["config", "check", "--config", huge])
        #expect(tooBig.status == 1 && tooBig.stderrLines.count == 1)
    }

    /// What a valid file will still fail at when it runs: the README's example textfile
    /// directory is read-only inside usedspace.service's sandbox (until a drop-in opens it),
    /// /proc takes no files, a watched path that does not exist.
    @Test func configCheckFindsWhatWillFailAtRunTime() throws {
        let directory = try ScratchDirectory("config-runtime")
        let xdg = directory.subpath("xdg")
        let environment = ["HOME": userHome, "XDG_CONFIG_HOME": xdg]
        let exporter = directory.subpath("node-exporter")
        try FileManager.default.createDirectory(atPath: exporter, withIntermediateDirectories: true)
        let file = directory.subpath("config")
        try "[daemon]\npath = ~\npath = \(directory.path)/unplugged\n[prometheus]\ntextfile-dir = \(exporter)\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(CommandRunner.usedspace, ["config", "check", "--config", file], environment: environment)
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("\(file): valid, but 2 things will fail when it runs:"))
        #expect(result.stderrLines.map(String.init) == [
            "\(file):3: path: \(directory.path)/unplugged: no such file or directory; the daemon will show it as failed until that changes",
            "\(file):5: textfile-dir: usedspace.service (ProtectSystem=strict, ProtectHome=read-only) cannot write \(exporter): add a drop-in with `systemctl --user edit usedspace.service` that says [Service] ReadWritePaths=\(exporter), then systemctl --user restart usedspace",
        ])
        // The drop-in the message names: then only the unplugged disk is left.
        try FileManager.default.createDirectory(atPath: xdg + "/systemd/user/usedspace.service.d", withIntermediateDirectories: true)
        try "[Service]\nReadWritePaths=-\(exporter)\n".write(toFile: xdg + "/systemd/user/usedspace.service.d/override.conf", atomically: true, encoding: .utf8)
        let opened = try CommandRunner.run(CommandRunner.usedspace, ["config", "check", "--config", file], environment: environment)
        #expect(opened.stderrLines.count == 1 && opened.stderr.contains("unplugged"), "\(opened.stderr)")

        try "[prometheus]\ntextfile-dir = /proc\n".write(toFile: file, atomically: true, encoding: .utf8)
        let proc = try CommandRunner.run(CommandRunner.usedspace, ["config", "check", "--config", file], environment: environment)
        #expect(proc.status == 1)
        #expect(proc.stderr == "\(file):2: textfile-dir: /proc is on proc (/proc), where no file can be created; choose the node exporter's textfile directory\n")
        // `~` works in textfile-dir as in path; the state directory is writable in the sandbox.
        try "[prometheus]\ntextfile-dir = ~/.local/state/usedspace/metrics\n".write(toFile: file, atomically: true, encoding: .utf8)
        let home = try CommandRunner.run(CommandRunner.usedspace, ["config", "check", "--config", file], environment: environment)
        #expect(home.status == 0, "\(home.stderr)")
        #expect(home.stdout.contains("keeps ~/.local/state/usedspace/metrics/usedspace.prom current"))
    }

    static let service = Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter")

    /// The daemon as users run it (UserServiceDaemon: socket-activated under the shipped unit
    /// in the user's manager), its textfile directory opened in a drop-in as usedspaced(8)
    /// tells users.
    static func textfile(_ paths: [String], mountTmpfs: Bool) throws -> (UserServiceDaemon, String, ScratchDirectory) {
        let scratch = try ScratchDirectory("textfile")
        let metrics = scratch.subpath("metrics")
        try FileManager.default.createDirectory(atPath: metrics, withIntermediateDirectories: true)
        let daemon = try UserServiceDaemon(arguments: paths.flatMap { ["--path", $0] } + ["--interval", "200ms", "--textfile-dir", metrics],
                                           dropIn: "ReadWritePaths=\(metrics)")
        try daemon.manager.giveToUser(metrics)
        try daemon.waitUntilAnswering()
        #expect(waitUntil(seconds: 5) { FileManager.default.fileExists(atPath: metrics + "/usedspace.prom") })
        return (daemon, metrics, scratch)
    }

    @Test(Prerequisite.root, service, Prerequisite.enabled(Prerequisite.hasCommand("promtool"), "needs promtool (apt-get install prometheus)"))
    func theTextfilePassesPromtool() throws {
        let (daemon, metrics, directory) = try Self.textfile(["/", "~"], mountTmpfs: false)
        defer { withExtendedLifetime((daemon, directory)) {} }
        let check = try CommandRunner.run("/bin/sh", ["-c", "promtool check metrics < \(quoted(metrics + "/usedspace.prom"))"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let text = try String(contentsOfFile: metrics + "/usedspace.prom", encoding: .utf8)
        #expect(text.contains("usedspace_avail_bytes{path=\"/\",mountpoint=\"/\",fstype="))
        var info = stat()
        stat(metrics + "/usedspace.prom", &info)
        #expect(info.st_mode & 0o777 == 0o644, "the node exporter, another user, must be able to read it")
        let home = URL(fileURLWithPath: daemon.home).resolvingSymlinksInPath().path
        #expect(text.contains("usedspace_up{path=\"\(home)\""))
    }

    /// A path with a quote, a backslash and a newline in it, scraped by a real node exporter.
    @Test(Prerequisite.root, service, Prerequisite.enabled(Prerequisite.hasCommand("prometheus-node-exporter") && Prerequisite.hasCommand("curl"),
                                                  "needs prometheus-node-exporter and curl"))
    func nodeExporterServesTheMetrics() throws {
        let scratch = try ScratchDirectory("node-exporter")
        let odd = try scratch.mountTmpfs(at: "odd \"name\" \\ here", options: "size=10m")
        let (daemon, metrics, directory) = try Self.textfile([odd], mountTmpfs: true)
        defer { withExtendedLifetime((daemon, directory)) {} }
        var port: Int32 = 0
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &length) } }
        port = Int32(UInt16(bigEndian: address.sin_port))
        close(probe)
        let exporter = try SpawnedProcess("/usr/bin/prometheus-node-exporter", [
            "--web.listen-address=127.0.0.1:\(port)", "--collector.disable-defaults", "--collector.textfile",
            "--collector.textfile.directory=\(metrics)",
        ], environment: [:], logFile: scratch.subpath("exporter.log"))
        defer { withExtendedLifetime(exporter) {} }
        var body = ""
        #expect(waitUntil(seconds: 10) {
            body = (try? CommandRunner.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/metrics"]).stdout) ?? ""
            return body.contains("usedspace_size_bytes")
        }, "\((try? String(contentsOfFile: scratch.subpath("exporter.log"), encoding: .utf8)) ?? "")")
        #expect(body.contains("usedspace_size_bytes{fstype=\"tmpfs\",mountpoint=\"\(odd.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\""))
        // The exporter writes numbers its own way: 10 MiB is 1.048576e+07.
        #expect(body.contains("usedspace_size_bytes") && body.contains("} 1.048576e+07"))
        #expect(body.split(separator: "\n").contains("node_textfile_scrape_error 0"), "the exporter could not parse our file")
    }
}
