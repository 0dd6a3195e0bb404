import Foundation
import Testing

/// usedspaced run directly: its socket, its protocol, its files. (DaemonServiceTests run it
/// under a real systemd user manager.)
@Suite struct DaemonProtocolTests {
    static func daemon(_ arguments: [String] = ["--interval", "200ms"], environment: [String: String] = [:]) throws -> DaemonProcess {
        let daemon = try DaemonProcess(arguments: arguments, environment: environment)
        try daemon.waitUntilAnswering()
        return daemon
    }

    @Test func answersEveryRequestOfTheProtocol() throws {
        let daemon = try Self.daemon()
        let client = try ProtocolClient(path: daemon.socketPath)
        let hello = try client.request("hello")
        #expect(hello.header == "ok 1")
        #expect(hello.lines.first?.hasPrefix("usedspace-protocol 1 usedspaced ") == true)
        #expect(try client.request("PING").lines == ["pong"])

        let text = try client.request("status")
        #expect(text.header == "ok 1")
        #expect(text.lines[0].wholeMatch(of: /\[[█░]{20}\] [ \d]{3}\.\d%/) != nil)

        let details = try client.request("status details")
        #expect(details.lines.count == 5)
        #expect(details.lines[1].hasPrefix("Used:\t") && details.lines[2].hasPrefix("Free:\t") && details.lines[3].hasPrefix("Total:\t"))

        let json = try #require(try client.request("status format=json").json)
        #expect(json["source"] as? String == "daemon")
        #expect(json["state"] as? String == "fresh")
        #expect(json["path"] as? String == URL(fileURLWithPath: userHome).resolvingSymlinksInPath().path)

        let snapshot = try client.request("status snapshot")
        #expect(snapshot.lines.first?.contains("\"total_blocks\":") == true)

        let help = try client.request("help")
        #expect(help.lines.contains { $0.hasPrefix("subscribe") })

        #expect(try client.request("quit").header == "ok 0")
        #expect(client.isClosedByPeer(timeout: 2))
    }

    @Test(arguments: [
        ("frobnicate", "error unknown-request unknown request 'frobnicate'; try 'help'"),
        ("status format=xml", "error bad-argument unknown format 'xml'"),
        ("status colour=blue", "error bad-argument unknown argument 'colour=blue'"),
        ("status path=relative", "error bad-argument path= needs an absolute, percent-encoded path"),
        ("status path=/bad%zz", "error bad-argument path= needs an absolute, percent-encoded path"),
        ("ping now", "error bad-argument 'ping' takes no arguments"),
        ("", "error bad-request empty request"),
        ("status path=/no/such/place", "error not-watched /no/such/place is not watched by this daemon"),
    ])
    func refusesBadRequestsWithAReasonAndKeepsTheConnection(_ request: String, _ expected: String) throws {
        let daemon = try Self.daemon()
        let client = try ProtocolClient(path: daemon.socketPath)
        let answer = try client.request(request)
        #expect(answer.header.hasPrefix(expected), "\(answer.header)")
        #expect(try client.request("ping").lines == ["pong"])
    }

    /// `echo status | socat - UNIX-CONNECT:…`: the client half-closes after its request and
    /// must still get the whole answer.
    @Test func answersAClientThatHalfClosesAfterItsRequest() throws {
        let daemon = try Self.daemon()
        let client = try ProtocolClient(path: daemon.socketPath)
        try client.send("status details\nhello\n")
        client.shutdownWriting()
        #expect(try client.readFrame(timeout: 5)?.lines.count == 5)
        #expect(try client.readFrame(timeout: 5)?.header == "ok 1")
        #expect(client.isClosedByPeer(timeout: 2))
    }

    @Test(Prerequisite.enabled(Prerequisite.hasCommand("socat"), "needs socat"))
    func isUsableByHandWithSocat() throws {
        let daemon = try Self.daemon()
        let result = try CommandRunner.run("/bin/sh", ["-c", "printf 'status details\\n' | socat -t 2 - UNIX-CONNECT:\(quoted(daemon.socketPath))"])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "ok 5")
        #expect(lines.count == 6)
    }

    @Test(Prerequisite.root) func subscribersGetEveryPublishAndNothingElse() throws {
        let scratch = try ScratchDirectory("subscribe")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let daemon = try Self.daemon(["--path", mount, "--interval", "100ms"])
        let client = try ProtocolClient(path: daemon.socketPath)
        let first = try client.request("subscribe format=json")
        #expect(first.header == "ok 1")
        let seq = try #require(first.json?["seq"] as? Int)

        // 1 MiB of 100 MiB is ~1 %: a publish.
        try daemon.whileStopped { try Data(count: 1 << 20).write(to: URL(fileURLWithPath: mount + "/big")) }
        let update = try #require(try client.readFrame(timeout: 5))
        #expect(update.header == "update 1")
        #expect(update.json?["seq"] as? Int == seq + 1)
        #expect((update.json?["used_bytes"] as? Int ?? 0) >= 1 << 20)

        // One 4 KiB page is 0.004 %, under the 0.01 % threshold: nothing for 20 intervals.
        try Data(count: 4096).write(to: URL(fileURLWithPath: mount + "/small"))
        #expect(throws: HarnessFailure.self) { try client.readFrame(timeout: 2) }

        // Freeing space publishes too (the widget's bug was to miss this).
        try daemon.whileStopped { try FileManager.default.removeItem(atPath: mount + "/big") }
        let freed = try #require(try client.readFrame(timeout: 5))
        #expect(freed.json?["seq"] as? Int == seq + 2)
        #expect((freed.json?["used_bytes"] as? Int ?? Int.max) < 1 << 20)
    }

    @Test func theSocketIsPrivateAndRemovedOnStop() throws {
        let daemon = try Self.daemon()
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test func refusesToStartWhenAnotherInstanceAnswers() throws {
        let first = try Self.daemon()
        let second = try DaemonProcess(arguments: ["--interval", "200ms"], socketPath: first.socketPath, stateDirectory: first.stateDirectory)
        try #require(waitUntil(seconds: 10) { !second.process.isRunning }, "still running; stderr: \(second.stderrText.value)")
        #expect(second.process.terminationStatus == 1)
        #expect(second.stderrText.value.contains("another usedspaced is already answering"))
        #expect(try ProtocolClient(path: first.socketPath).request("ping").lines == ["pong"])
    }

    @Test func replacesAStaleSocketFile() throws {
        let directory = try ScratchDirectory("stale")
        let path = directory.subpath("usedspace.sock")
        // A socket file nobody listens on, as a crashed daemon leaves behind.
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(listener)
        #expect(FileManager.default.fileExists(atPath: path))
        let daemon = try DaemonProcess(arguments: ["--interval", "200ms"], socketPath: path)
        try daemon.waitUntilAnswering()
        #expect(daemon.stderrText.value.contains("removed a stale socket"))
    }

    /// A stopped daemon still has its socket accept connections (into the backlog): it does
    /// not answer, so a new instance takes the path over instead of refusing to start.
    @Test func replacesTheSocketOfAnInstanceThatNoLongerAnswers() throws {
        let first = try Self.daemon()
        first.signal(SIGSTOP)
        defer { first.signal(SIGCONT) }
        let second = try DaemonProcess(arguments: ["--interval", "200ms"], socketPath: first.socketPath)
        try second.waitUntilAnswering()
        #expect(second.stderrText.value.contains("does not answer"))
        #expect(!first.stderrText.value.contains("error"))
    }

    /// A socket at the path that answers with something else is not ours to replace, whether
    /// that program greets and hangs up at once (before the daemon's ping can even be sent)
    /// or answers the ping.
    @Test(arguments: ["greets and hangs up", "answers the request"])
    func refusesToReplaceTheSocketOfAnotherProgram(_ behaviour: String) throws {
        let directory = try ScratchDirectory("other")
        let path = directory.subpath("usedspace.sock")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0 && listen(listener, 8) == 0)
        let answerer = Thread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            if behaviour == "answers the request" {
                var byte: UInt8 = 0
                while read(connection, &byte, 1) == 1 && byte != UInt8(ascii: "\n") {}
            }
            let reply = Array("HTTP/1.0 400 Bad Request\r\n\r\n".utf8)
            _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            close(connection)
        }
        answerer.start()
        let daemon = try DaemonProcess(arguments: [], socketPath: path)
        try #require(waitUntil(seconds: 10) { !daemon.process.isRunning }, "still running; stderr: \(daemon.stderrText.value)")
        #expect(daemon.process.terminationStatus == 1)
        #expect(daemon.stderrText.value.contains("another program is answering on \(path)"), "stderr: \(daemon.stderrText.value)")
        var status = stat()
        #expect(stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK)
    }

    @Test func refusesToReplaceAFileThatIsNotASocket() throws {
        let directory = try ScratchDirectory("notsocket")
        let path = directory.subpath("important")
        try "keep me".write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: [], socketPath: path)
        try #require(waitUntil(seconds: 10) { !daemon.process.isRunning }, "still running; stderr: \(daemon.stderrText.value)")
        #expect(daemon.process.terminationStatus == 1)
        #expect(daemon.stderrText.value.contains("exists and is not a socket"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }

    @Test func theClientUsesTheDaemonAndFallsBackWithoutIt() throws {
        let daemon = try Self.daemon()
        let environment = ["USEDSPACE_SOCKET": daemon.socketPath, "HOME": userHome, "PATH": "/usr/bin:/bin"]
        let through = try CommandRunner.run(CommandRunner.usedspace, ["status", "--format", "json"], environment: environment)
        #expect(through.stdout.contains("\"source\":\"daemon\""))
        let forced = try CommandRunner.run(CommandRunner.usedspace, ["status", "--format", "json", "--no-daemon"], environment: environment)
        #expect(forced.stdout.contains("\"source\":\"direct\""))
        // A path the daemon does not watch is sampled by the client itself.
        let other = try CommandRunner.run(CommandRunner.usedspace, ["status", "--format", "json", "--path", "/"], environment: environment)
        #expect(other.status == 0)
        #expect(other.stdout.contains("\"source\":\"direct\""))
        #expect(daemon.stop() == 0)
        let after = try CommandRunner.run(CommandRunner.usedspace, ["status", "--format", "json"], environment: environment)
        #expect(after.status == 0)
        #expect(after.stdout.contains("\"source\":\"direct\""))
    }

    @Test func theClientFallsBackWhenTheDaemonDoesNotAnswer() throws {
        let daemon = try Self.daemon()
        daemon.signal(SIGSTOP)
        defer { daemon.signal(SIGCONT) }
        let started = Date()
        let result = try CommandRunner.run(CommandRunner.usedspace, ["status", "--format", "json"],
                                           environment: ["USEDSPACE_SOCKET": daemon.socketPath, "HOME": userHome])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"source\":\"direct\""))
        #expect(Date().timeIntervalSince(started) < 3)
    }

    @Test func persistsTheSnapshotAndServesItStaleAfterARestart() throws {
        let first = try Self.daemon()
        let before = try #require(try ProtocolClient(path: first.socketPath).request("status json").json)
        #expect(first.stop() == 0)
        let stateFile = first.stateDirectory + "/state.json"
        let saved = try String(contentsOfFile: stateFile, encoding: .utf8)
        #expect(saved.hasPrefix("{\"format\":\"usedspace-state\",\"version\":2,"))
        #expect(saved.contains("\"seq\":\(before["seq"] as! Int)"))
        var info = stat()
        stat(stateFile, &info)
        #expect(info.st_mode & 0o777 == 0o600)

        let second = try DaemonProcess(arguments: ["--interval", "200ms"], stateDirectory: first.stateDirectory)
        try second.waitUntilAnswering()
        let after = try #require(try ProtocolClient(path: second.socketPath).request("status json").json)
        // The first sample of the new run publishes with the next seq: never back to 1.
        #expect((after["seq"] as? Int ?? 0) >= (before["seq"] as! Int))
    }

    /// Version 1 state files (before the watched path was saved beside each snapshot) are
    /// still read: an upgrade keeps the last snapshot and its seq.
    @Test func aVersionOneStateFileIsStillRead() throws {
        let directory = try ScratchDirectory("state-v1")
        let state = directory.subpath("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let watched = URL(fileURLWithPath: directory.path).resolvingSymlinksInPath().path
        let fields: [String] = [
            #""version":1"#, #""path":"\#(watched)""#, #""mountpoint":"/""#, #""fstype":"ext4""#, #""block_size":4096"#,
            #""total_blocks":1000"#, #""free_blocks":400"#, #""available_blocks":300"#, #""total_inodes":100"#,
            #""free_inodes":50"#, #""state":"fresh""#, #""seq":1000"#, #""sampled_at":"2026-11-20T10:00:00Z""#,
        ]
        let snapshot: String = "{" + fields.joined(separator: ",") + "}"
        let file: String = #"{"format":"usedspace-state","version":1,"snapshots":["# + "\n" + snapshot + "\n]}\n"
        try file.write(toFile: state + "/state.json", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--path", watched, "--interval", "1h"], stateDirectory: state)
        try daemon.waitUntilAnswering()
        let json = try #require(try ProtocolClient(path: daemon.socketPath).request("status json").json)
        #expect((json["seq"] as? Int ?? 0) >= 1000, "\(json)")
        #expect(!daemon.stderrText.value.contains("state file"), "\(daemon.stderrText.value)")
    }

    @Test(arguments: [
        ("not json at all", "ignoring the state file"),
        (#"{"format":"something-else","version":1}"#, "not a usedspace state file"),
        (#"{"format":"usedspace-state","version":9,"snapshots":[]}"#, "version 9"),
        (String(repeating: "x", count: 2 << 20), "cannot read the state file"),
        (#"{"format":"usedspace-state","version":1,"snapshots":[{"version":1,"path":"relative"}]}"#, "skipping a snapshot"),
        // A seq the next publish would wrap around to 0 from.
        (#"{"format":"usedspace-state","version":1,"snapshots":[{"version":1,"path":"/","mountpoint":"/","fstype":"ext4","#
            + #""block_size":4096,"total_blocks":1000,"free_blocks":400,"available_blocks":300,"total_inodes":100,"free_inodes":50,"state":"fresh","#
            + #""seq":18446744073709551615,"sampled_at":"2026-11-20T10:00:00Z"}]}"#, "'seq' is above 2^53 - 1"),
    ])
    func aBrokenStateFileIsReportedAndReplaced(_ contents: String, _ message: String) throws {
        let directory = try ScratchDirectory("state")
        let state = directory.subpath("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try contents.write(toFile: state + "/state.json", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--interval", "200ms"], stateDirectory: state)
        try daemon.waitUntilAnswering()
        #expect(waitUntil(seconds: 5) {
            ((try? String(contentsOfFile: state + "/state.json", encoding: .utf8)) ?? "").hasPrefix("{\"format\":\"usedspace-state\"")
        })
        #expect(daemon.stderrText.value.contains(message), "\(daemon.stderrText.value)")
        #expect(daemon.stderrText.value.components(separatedBy: message).count == 2, "reported once")
        #expect(daemon.stop() == 0)
    }

    @Test(arguments: [
        (["--interval", "0"], "invalid value '0' for '--interval'"),
        (["--interval", "soon"], "not a duration"),
        (["--threshold", "2"], "out of range"),
        (["--path", "relative"], "the path must be absolute"),
        (["--bogus"], "unknown option '--bogus' for 'usedspaced'"),
        (["extra"], "unexpected argument 'extra'"),
    ])
    func badOptionsExitTwoWithOneLine(_ arguments: [String], _ message: String) throws {
        let result = try CommandRunner.run(CommandRunner.usedspaced, arguments)
        #expect(result.status == 2)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("usedspaced: ") && result.stderr.contains(message), "\(result.stderr)")
    }

    /// A typo must not switch the daemon off (it did: exit 78, then the socket unit failed
    /// after a few activations, and clients sampled by themselves without a word). It runs
    /// with the defaults and says what is wrong, with file and line, to every client.
    @Test func anInvalidConfigurationIsReportedEverywhereAndTheDaemonKeepsServing() throws {
        let directory = try ScratchDirectory("badconfig")
        let config = directory.subpath("config")
        try "[daemon]\nintervall = 5s\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config", config, "--path", directory.path])
        try daemon.waitUntilAnswering()
        let expected = "\(config):2: unknown key 'intervall' in [daemon]"
        #expect(daemon.stderrText.value.contains("configuration refused: \(expected)"), "\(daemon.stderrText.value)")
        let json = try #require(try ProtocolClient(path: daemon.socketPath).request("status json").json)
        #expect((json["config_error"] as? String)?.hasPrefix(expected) == true, "\(json)")
        #expect((json["config_error"] as? String)?.hasSuffix("running with the default settings") == true)
        #expect(json["state"] as? String == "fresh")
        let bar = try ProtocolClient(path: daemon.socketPath).request("status waybar")
        #expect(bar.lines.first?.contains("\u{26A0} config") == true, "\(bar.lines)")

        let environment = ProcessInfo.processInfo.environment.merging(["USEDSPACE_SOCKET": daemon.socketPath]) { $1 }
        let status = try CommandRunner.run(CommandRunner.usedspace, ["status", "--path", directory.path], environment: environment)
        #expect(status.status == 0)
        #expect(status.stderr.contains("usedspaced refused its configuration: \(expected)"), "\(status.stderr)")
    }

    /// A bar format reads the configuration file too: when the daemon refused the same file,
    /// one line says both (it said the mistake twice, in two wordings).
    @Test func aRefusedConfigurationIsSaidOnceByABar() throws {
        let directory = try ScratchDirectory("badconfig-once")
        try FileManager.default.createDirectory(atPath: directory.subpath("usedspace"), withIntermediateDirectories: true)
        let config = directory.subpath("usedspace/config")
        try "[daemon]\nintervall = 5s\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--path", directory.path], environment: ["XDG_CONFIG_HOME": directory.path])
        try daemon.waitUntilAnswering()
        let environment = ProcessInfo.processInfo.environment.merging(["USEDSPACE_SOCKET": daemon.socketPath,
                                                                       "XDG_CONFIG_HOME": directory.path]) { $1 }
        for format in ["waybar", "i3blocks"] {
            let status = try CommandRunner.run(CommandRunner.usedspace, ["status", "--path", directory.path, "--format", format],
                                               environment: environment)
            #expect(status.status == 0)
            #expect(status.stderrLines.count == 1, "\(status.stderr)")
            #expect(status.stderr.contains("\(config):2:") && status.stderr.contains("unknown key 'intervall'")
                    && status.stderr.contains("usedspaced refused it too and runs with the default settings"), "\(status.stderr)")
        }
        // Another file named with --config: the client's words about it, and the daemon's
        // about its own.
        let other = directory.subpath("other")
        try "[bar]\nwidht = 3\n".write(toFile: other, atomically: true, encoding: .utf8)
        let both = try CommandRunner.run(CommandRunner.usedspace, ["status", "--path", directory.path, "--format", "waybar", "--config", other],
                                         environment: environment)
        #expect(both.stderrLines.count == 2, "\(both.stderr)")
        #expect(both.stderr.contains("\(other):2:") && both.stderr.contains("usedspaced refused its configuration: \(config):2:"),
                "\(both.stderr)")
    }

    /// The log reads well by itself: every message carries its reason (path, call, errno),
    /// not only a structured field, and a publish says what it published.
    @Test func everyLogMessageSaysWhy() throws {
        let directory = try ScratchDirectory("log-reasons")
        let missing = directory.subpath("gone")
        let daemon = try DaemonProcess(arguments: ["--path", directory.path, "--path", missing, "--textfile-dir", "/proc/usedspace-test",
                                                   "--interval", "200ms"])
        try daemon.waitUntilAnswering()
        let log = { daemon.stderrText.value }
        #expect(waitUntil(seconds: 5) {
            log().contains("sampling failed: \(missing): no such file or directory (seq ")
                && log().contains("cannot save the Prometheus textfile /proc/usedspace-test/usedspace.prom: mkdir: ")
                && log().contains("published ") && log().contains("% used, ")
        }, "\(log())")
        // `usedspaced --reload` (the unit's ExecReload=): the outcome, synchronously.
        let config = daemon.directory + "/config/usedspace/config"
        try FileManager.default.createDirectory(atPath: daemon.directory + "/config/usedspace", withIntermediateDirectories: true)
        try "[daemon]\npath = \(directory.path)\ninterval = soon\n".write(toFile: config, atomically: true, encoding: .utf8)
        let refused = try CommandRunner.run(CommandRunner.usedspaced, ["--reload", "--socket", daemon.socketPath])
        #expect(refused.status == 1)
        #expect(refused.stderr == "usedspaced: configuration refused, the running one is kept: \(config):3: interval: 'soon' is not a duration such as 5s, 500ms or 2min\n",
                "\(refused.stderr)")
        try "[daemon]\npath = \(directory.path)\ninterval = 1s\n".write(toFile: config, atomically: true, encoding: .utf8)
        let applied = try CommandRunner.run(CommandRunner.usedspaced, ["--reload", "--socket", daemon.socketPath])
        #expect(applied.status == 0)
        // (The command line's --path and --interval still win over the file.)
        #expect(applied.stdout == "reloaded \(config): watching \(directory.path), \(missing) every 200 ms\n", "\(applied.stdout) \(applied.stderr)")
        #expect(log().contains("reloaded \(config)"))
    }

    @Test func helpAndVersion() throws {
        let help = try CommandRunner.run(CommandRunner.usedspaced, ["--help"])
        #expect(help.status == 0)
        for option in ["--path", "--interval", "--threshold", "--timeout", "--socket", "--state-dir", "--config", "--max-clients"] {
            #expect(help.stdout.contains(option), "\(option)")
        }
        #expect(try CommandRunner.run(CommandRunner.usedspaced, ["--version"]).stdout.hasPrefix("usedspaced "))
    }
}
