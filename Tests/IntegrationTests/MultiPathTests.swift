import Foundation
import Testing

/// Several watched paths: each its own snapshot and publish decision; `--all` shows them all;
/// two paths on one filesystem are sampled once. The daemon runs as users run it
/// (UserServiceDaemon: socket-activated under the shipped unit in the user's manager).
@Suite struct MultiPathTests {
    static let service = Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter")

    @Test(Prerequisite.root, service) func eachPathPublishesOnItsOwn() throws {
        let scratch = try ScratchDirectory("multi")
        let first = try scratch.mountTmpfs(at: "one", options: "size=64m")
        let second = try scratch.mountTmpfs(at: "two", options: "size=64m")
        let daemon = try UserServiceDaemon(arguments: ["--path", first, "--path", second, "--interval", "100ms"])
        try daemon.waitUntilAnswering()
        let client = try daemon.client()
        let initial = try client.request("subscribe json all")
        #expect(initial.header == "ok 2")
        let paths = initial.lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["path"] as? String }
        #expect(paths == [first, second])
        try daemon.whileStopped { try Data(count: 4 << 20).write(to: URL(fileURLWithPath: second + "/data")) }
        let update = try #require(try client.readFrame(timeout: 5))
        #expect(update.header == "update 1")
        #expect(update.json?["path"] as? String == second, "only the filesystem that changed publishes")
        #expect(throws: HarnessFailure.self) { try client.readFrame(timeout: 1) }
        let one = try daemon.client().request("status json path=\(first)")
        #expect(one.json?["path"] as? String == first)
        #expect(try daemon.client().request("status all path=/x").header.hasPrefix("error bad-argument"))
    }

    /// strace attaches to the running service (all its threads) for 3 s, then detaches
    /// (SIGINT; spawned with no signal blocked: a child of Foundation's Process inherits a
    /// dispatch thread's blocked mask, and strace -p then never sees the SIGINT).
    @Test(Prerequisite.root, service, Prerequisite.enabled(Prerequisite.hasCommand("strace"), "needs strace"))
    func twoPathsOnOneFilesystemAreSampledOnce() throws {
        let scratch = try ScratchDirectory("once")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=64m")
        for sub in ["a", "b"] { try FileManager.default.createDirectory(atPath: mount + "/" + sub, withIntermediateDirectories: true) }
        let log = scratch.subpath("strace.log")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount + "/a", "--path", mount + "/b", "--interval", "100ms"])
        try daemon.waitUntilAnswering()
        let pid = try #require(daemon.pid)
        let strace = try SpawnedProcess("/usr/bin/strace", ["-f", "-qq", "-e", "trace=statfs", "-o", log, "-p", String(pid)],
                                        environment: [:], logFile: scratch.subpath("strace.out"))
        usleep(3_000_000) // the observation window
        kill(strace.pid, SIGINT)
        try #require(waitUntil(seconds: 10) { !strace.isRunning }, "strace did not detach")
        let calls = (try String(contentsOfFile: log, encoding: .utf8)).split(separator: "\n").filter { $0.contains("statfs(\"\(mount)") }
        // Three seconds at 100 ms: about 30 ticks. Two paths sampled separately would make 60.
        #expect(calls.count >= 15 && calls.count <= 40, "\(calls.count) statfs calls")
        #expect(calls.contains { $0.contains("/a\"") } || calls.contains { $0.contains("/b\"") })
    }

    @Test func statusAllShowsEveryConfiguredPathWithoutADaemon() throws {
        let scratch = try ScratchDirectory("status-all")
        try FileManager.default.createDirectory(atPath: scratch.subpath("config/usedspace"), withIntermediateDirectories: true)
        try "[daemon]\npath = /\npath = /tmp\n".write(toFile: scratch.subpath("config/usedspace/config"), atomically: true, encoding: .utf8)
        let environment = ["XDG_CONFIG_HOME": scratch.subpath("config"), "HOME": userHome, "USEDSPACE_SOCKET": scratch.subpath("none.sock")]
        let json = try CommandRunner.run(CommandRunner.usedspace, ["status", "--all", "--format", "json"], environment: environment)
        #expect(json.status == 0)
        let objects = json.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.compactMap { $0["path"] as? String } == ["/", "/tmp"])
        let i3bar = try CommandRunner.run(CommandRunner.usedspace, ["status", "--all", "--format", "i3bar"], environment: environment)
        let blocks = try #require(try JSONSerialization.jsonObject(with: Data(i3bar.stdout.utf8)) as? [[String: Any]])
        #expect(blocks.compactMap { $0["instance"] as? String } == ["/", "/tmp"])
        #expect((blocks.first?["full_text"] as? String)?.hasPrefix("/ [") == true, "each block is named by its mount point")
        let both = try CommandRunner.run(CommandRunner.usedspace, ["status", "--all", "--path", "/"], environment: environment)
        #expect(both.status == 2)
    }

    /// i3bar gets a block per filesystem, and a click on one expands that one only.
    @Test(Prerequisite.root, service) func watchAllGivesABlockPerPathAndClicksGoToTheirBlock() throws {
        let daemon = try UserServiceDaemon(arguments: ["--path", "/", "--path", "/tmp", "--interval", "200ms"])
        try daemon.waitUntilAnswering()
        let watch = try daemon.watch(["--all", "--format", "i3bar"])
        let first = try watch.waitForLine(after: 2)
        let blocks = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [[String: Any]])
        #expect(blocks.compactMap { $0["instance"] as? String } == ["/", "/tmp"])
        watch.write("[\n{\"name\":\"usedspace\",\"instance\":\"/tmp\",\"button\":1}\n")
        let expanded = try watch.waitForLine(after: 3) { $0.contains("Used:") }
        let after = try #require(try JSONSerialization.jsonObject(with: Data(expanded.dropFirst().utf8)) as? [[String: Any]])
        #expect((after[0]["full_text"] as? String)?.contains("Used:") == false)
        #expect((after[1]["full_text"] as? String)?.contains("Used:") == true)
    }
}
