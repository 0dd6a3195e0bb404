import Foundation
import Testing

/// What the daemon serves, as users run it (the shipped units, socket-activated in the
/// user's manager): its protocol, its files, the client through it. (DirectStartTests: what
/// only a daemon started by hand shows.)
@Suite(Prerequisite.root, Prerequisite.enabled(UserServiceDaemon.available, "needs systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct DaemonProtocolTests {
    static func daemon(_ arguments: [String] = ["--interval", "200ms"], config: String? = nil) throws -> UserServiceDaemon {
        let daemon = try UserServiceDaemon(arguments: arguments, config: config)
        try daemon.waitUntilAnswering()
        return daemon
    }

    @Test func answersEveryRequestOfTheProtocol() throws {
        let daemon = try Self.daemon()
        let client = try daemon.client()
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
        #expect(json["path"] as? String == URL(fileURLWithPath: daemon.home).resolvingSymlinksInPath().path)

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
        let client = try daemon.client()
        let answer = try client.request(request)
        #expect(answer.header.hasPrefix(expected), "\(answer.header)")
        #expect(try client.request("ping").lines == ["pong"])
    }

    /// `echo status | socat - UNIX-CONNECT:…`: the client half-closes after its request and
    /// must still get the whole answer.
    @Test func answersAClientThatHalfClosesAfterItsRequest() throws {
        let daemon = try Self.daemon()
        let client = try daemon.client()
        try client.send("status details\nhello\n")
        client.shutdownWriting()
        #expect(try client.readFrame(timeout: 5)?.lines.count == 5)
        #expect(try client.readFrame(timeout: 5)?.header == "ok 1")
        #expect(client.isClosedByPeer(timeout: 2))
    }

    @Test(Prerequisite.enabled(Prerequisite.hasCommand("socat"), "needs socat"))
    func isUsableByHandWithSocat() throws {
        let daemon = try Self.daemon()
        // As usedspaced(8) shows it, typed by the user.
        let result = try daemon.manager.runAsUser("/bin/sh", ["-c", "printf 'status details\\n' | socat -t 2 - UNIX-CONNECT:$XDG_RUNTIME_DIR/usedspace.sock"])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "ok 5")
        #expect(lines.count == 6)
    }

    @Test(Prerequisite.root, Prerequisite.enabled(SampleSighting.available, SampleSighting.requirement))
    func subscribersGetEveryPublishAndNothingElse() throws {
        let scratch = try ScratchDirectory("subscribe")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let daemon = try Self.daemon(["--path", mount, "--interval", "100ms"])
        let client = try daemon.client()
        let first = try client.request("subscribe format=json")
        #expect(first.header == "ok 1")
        let seq = try #require(first.json?["seq"] as? Int)

        // 1 MiB of 100 MiB is ~1 %: a publish.
        try daemon.whileStopped { try Data(count: 1 << 20).write(to: URL(fileURLWithPath: mount + "/big")) }
        let update = try #require(try client.readFrame(timeout: 5))
        #expect(update.header == "update 1")
        #expect(update.json?["seq"] as? Int == seq + 1)
        #expect((update.json?["used_bytes"] as? Int ?? 0) >= 1 << 20)

        // One 4 KiB page is 0.004 %, under the 0.01 % threshold: once the daemon has sampled
        // it, nothing (an observation window of 5 intervals after that sample).
        let sighting = try SampleSighting(daemon, path: mount)
        try Data(count: 4096).write(to: URL(fileURLWithPath: mount + "/small"))
        try #require(try sighting.waitForSampleOfNow(), "the daemon did not sample the 4 KiB page")
        sighting.stop()
        #expect(throws: HarnessFailure.self) { try client.readFrame(timeout: 0.5) }

        // Freeing space publishes too (the widget's bug was to miss this).
        try daemon.whileStopped { try FileManager.default.removeItem(atPath: mount + "/big") }
        let freed = try #require(try client.readFrame(timeout: 5))
        #expect(freed.json?["seq"] as? Int == seq + 2)
        #expect((freed.json?["used_bytes"] as? Int ?? Int.max) < 1 << 20)
    }

    @Test func theClientUsesTheDaemonAndFallsBackWithoutIt() throws {
        let daemon = try Self.daemon()
        let through = try daemon.usedspace(["status", "--format", "json"])
        #expect(through.stdout.contains("\"source\":\"daemon\""))
        let forced = try daemon.usedspace(["status", "--format", "json", "--no-daemon"])
        #expect(forced.stdout.contains("\"source\":\"direct\""))
        // A path the daemon does not watch is sampled by the client itself.
        let other = try daemon.usedspace(["status", "--format", "json", "--path", "/"])
        #expect(other.status == 0)
        #expect(other.stdout.contains("\"source\":\"direct\""))
        // The socket disabled too (else the next client starts the service again).
        #expect(try daemon.manager.systemctl("stop", "usedspace.socket", "usedspace.service").status == 0)
        let after = try daemon.usedspace(["status", "--format", "json"])
        #expect(after.status == 0)
        #expect(after.stdout.contains("\"source\":\"direct\""))
    }

    @Test func theClientFallsBackWhenTheDaemonDoesNotAnswer() throws {
        let daemon = try Self.daemon()
        daemon.signal(SIGSTOP)
        defer { daemon.signal(SIGCONT) }
        let started = Date()
        let result = try daemon.usedspace(["status", "--format", "json"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"source\":\"direct\""))
        #expect(Date().timeIntervalSince(started) < 3)
    }

    /// A disk in use publishes every sample; the state file is not rewritten each time
    /// (once a minute at most, and at stop, exactly); a daemon killed meanwhile comes back
    /// above every seq it published (the file reserves them).
    @Test(Prerequisite.root) func theStateFileIsWrittenOnceAMinuteAndAtStopAndSeqNeverGoesBack() throws {
        let scratch = try ScratchDirectory("state-minute")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let daemon = try Self.daemon(["--path", mount, "--interval", "100ms", "--threshold", "0"])
        let stateFile = daemon.stateDirectory + "/state.json"
        func inode() -> ino_t? {
            var info = stat()
            return stat(stateFile, &info) == 0 ? info.st_ino : nil
        }
        #expect(waitUntil(seconds: 5) { inode() != nil }, "the first publish is saved at once")
        let written = inode()
        let client = try daemon.client()
        let first = try #require(try client.request("subscribe format=json").json?["seq"] as? Int)
        for round in 1...10 {
            try Data(count: round << 20).write(to: URL(fileURLWithPath: mount + "/churn"))
            _ = try client.readFrame(timeout: 5)
        }
        let last = try #require(try daemon.client().request("status json").json?["seq"] as? Int)
        #expect(last >= first + 10)
        #expect(inode() == written, "rewritten within the minute")
        let reserved = try #require(try StateFileText(stateFile).reservedSeq)
        #expect(reserved > last, "the file reserves the seqs published since it was written")

        // Killed: the next run goes on above the reservation, its restored snapshot too.
        daemon.signal(SIGKILL)
        #expect(waitUntil(seconds: 10) { daemon.pid.map { $0 != 0 } != true || !daemon.isRunning })
        try daemon.waitUntilAnswering()
        let restored = try #require(try daemon.client().request("status json").json?["seq"] as? Int)
        #expect(restored >= reserved, "seq went back from \(last) to \(restored)")

        // Stopped: the file says the last seq exactly.
        let final = try #require(try daemon.client().request("status json").json?["seq"] as? Int)
        #expect(daemon.stop() == 0)
        // (Publishes may come between that answer and the stop: the file's last one.)
        let text = try StateFileText(stateFile)
        let saved = try #require(text.contents.firstMatch(of: /"seq":(\d+)/).flatMap { Int($0.output.1) })
        #expect(saved >= final)
        #expect(try text.reservedSeq == saved, "\(text.contents)")
    }

    /// The state file's text and its reservation.
    struct StateFileText {
        let contents: String
        init(_ path: String) throws { contents = try String(contentsOfFile: path, encoding: .utf8) }
        var reservedSeq: Int? {
            get throws {
                let object = try JSONSerialization.jsonObject(with: Data(contents.utf8)) as? [String: Any]
                return object?["seq_reserved"] as? Int
            }
        }
    }

    @Test func persistsTheSnapshotAndServesItStaleAfterARestart() throws {
        let first = try Self.daemon()
        let before = try #require(try first.client().request("status json").json)
        #expect(first.stop() == 0)
        let stateFile = first.stateDirectory + "/state.json"
        let saved = try String(contentsOfFile: stateFile, encoding: .utf8)
        #expect(saved.hasPrefix("{\"format\":\"usedspace-state\",\"version\":2,"))
        #expect(saved.contains("\"seq\":\(before["seq"] as! Int)"))
        var info = stat()
        stat(stateFile, &info)
        #expect(info.st_mode & 0o777 == 0o600)

        // The next client starts the service again, through the socket.
        let second = first
        try second.waitUntilAnswering()
        let after = try #require(try second.client().request("status json").json)
        // The first sample of the new run publishes with the next seq: never back to 1.
        #expect((after["seq"] as? Int ?? 0) >= (before["seq"] as! Int))
    }

    /// Version 1 state files (before the watched path was saved beside each snapshot) are
    /// still read: an upgrade keeps the last snapshot and its seq.
    @Test func aVersionOneStateFileIsStillRead() throws {
        let directory = try ScratchDirectory("state-v1")
        let watched = URL(fileURLWithPath: directory.path).resolvingSymlinksInPath().path
        let fields: [String] = [
            #""version":1"#, #""path":"\#(watched)""#, #""mountpoint":"/""#, #""fstype":"ext4""#, #""block_size":4096"#,
            #""total_blocks":1000"#, #""free_blocks":400"#, #""available_blocks":300"#, #""total_inodes":100"#,
            #""free_inodes":50"#, #""state":"fresh""#, #""seq":1000"#, #""sampled_at":"2026-11-20T10:00:00Z""#,
        ]
        let snapshot: String = "{" + fields.joined(separator: ",") + "}"
        let file: String = #"{"format":"usedspace-state","version":1,"snapshots":["# + "\n" + snapshot + "\n]}\n"
        let daemon = try UserServiceDaemon(arguments: ["--path", watched, "--interval", "1h"])
        try daemon.writeState("state.json", file)
        try daemon.waitUntilAnswering()
        let json = try #require(try daemon.client().request("status json").json)
        #expect((json["seq"] as? Int ?? 0) >= 1000, "\(json)")
        #expect(!daemon.log.value.contains("state file"), "\(daemon.log.value)")
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
        let daemon = try UserServiceDaemon(arguments: ["--interval", "200ms"])
        try daemon.writeState("state.json", contents)
        let state = daemon.stateDirectory
        try daemon.waitUntilAnswering()
        #expect(waitUntil(seconds: 5) {
            ((try? String(contentsOfFile: state + "/state.json", encoding: .utf8)) ?? "").hasPrefix("{\"format\":\"usedspace-state\"")
        })
        #expect(daemon.log.value.contains(message), "\(daemon.log.value)")
        #expect(daemon.log.value.components(separatedBy: message).count == 2, "reported once")
        #expect(daemon.stop() == 0)
    }

    /// A typo must not switch the daemon off (it did: exit 78, then the socket unit failed
    /// after a few activations, and clients sampled by themselves without a word). It runs
    /// with the defaults and says what is wrong, with file and line, to every client.
    @Test func anInvalidConfigurationIsReportedEverywhereAndTheDaemonKeepsServing() throws {
        let directory = try ScratchDirectory("badconfig")
        let daemon = try UserServiceDaemon(arguments: ["--path", directory.path], config: "[daemon]\nintervall = 5s\n")
        let config = daemon.configFile
        try daemon.waitUntilAnswering()
        let expected = "\(config):2: unknown key 'intervall' in [daemon]"
        #expect(daemon.log.value.contains("configuration refused: \(expected)"), "\(daemon.log.value)")
        let json = try #require(try daemon.client().request("status json").json)
        #expect((json["config_error"] as? String)?.hasPrefix(expected) == true, "\(json)")
        #expect((json["config_error"] as? String)?.hasSuffix("running with the default settings") == true)
        #expect(json["state"] as? String == "fresh")
        let bar = try daemon.client().request("status waybar")
        #expect(bar.lines.first?.contains("\u{26A0} config") == true, "\(bar.lines)")

        let status = try daemon.usedspace(["status", "--path", directory.path])
        #expect(status.status == 0)
        #expect(status.stderr.contains("usedspaced refused its configuration: \(expected)"), "\(status.stderr)")
    }

    /// A bar format reads the configuration file too: when the daemon refused the same file,
    /// one line says both (it said the mistake twice, in two wordings).
    @Test func aRefusedConfigurationIsSaidOnceByABar() throws {
        let directory = try ScratchDirectory("badconfig-once")
        let daemon = try UserServiceDaemon(arguments: ["--path", directory.path], config: "[daemon]\nintervall = 5s\n")
        let config = daemon.configFile
        try daemon.waitUntilAnswering()
        for format in ["waybar", "i3blocks"] {
            let status = try daemon.usedspace(["status", "--path", directory.path, "--format", format])
            #expect(status.status == 0)
            #expect(status.stderrLines.count == 1, "\(status.stderr)")
            #expect(status.stderr.contains("\(config):2:") && status.stderr.contains("unknown key 'intervall'")
                    && status.stderr.contains("usedspaced refused it too and runs with the default settings"), "\(status.stderr)")
        }
        // Another file named with --config: the client's words about it, and the daemon's
        // about its own.
        let other = directory.subpath("other")
        try "[bar]\nwidht = 3\n".write(toFile: other, atomically: true, encoding: .utf8)
        let both = try daemon.usedspace(["status", "--path", directory.path, "--format", "waybar", "--config", other])
        #expect(both.stderrLines.count == 2, "\(both.stderr)")
        #expect(both.stderr.contains("\(other):2:") && both.stderr.contains("usedspaced refused its configuration: \(config):2:"),
                "\(both.stderr)")
    }
}
