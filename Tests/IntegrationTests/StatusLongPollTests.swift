import Foundation
import Testing

/// `usedspace status --after SEQS`, the long poll a widget runs (the Plasma widget's data
/// engine): it answers when the daemon publishes something newer than what the widget has,
/// and costs nothing until then; it never outlives its reader.
@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct StatusLongPollTests {
    static func seq(_ line: String) -> UInt64? {
        (WatchProcess.json(line)?["seq"] as? NSNumber)?.uint64Value
    }

    @Test(Prerequisite.enabled(SampleSighting.available, SampleSighting.requirement))
    func itAnswersAtThePublishAfterTheSeqItWasGiven() throws {
        let scratch = try ScratchDirectory("long-poll")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "100ms"])
        try daemon.waitUntilAnswering()
        let now = try daemon.usedspace(["status", "--path", mount, "--format", "json"])
        let seq = try #require(Self.seq(now.stdout), "\(now.stdout) \(now.stderr)")

        // An older seq is answered at once, with the current snapshot.
        if seq > 1 {
            let behind = try daemon.usedspace(["status", "--path", mount, "--format", "json", "--after", "\(seq - 1)"], timeout: 5)
            #expect(behind.status == 0 && Self.seq(behind.stdout) == seq, "\(behind.stdout) \(behind.stderr)")
        }

        // The current seq waits: nothing while the daemon samples the idle disk, then the
        // publish of a write.
        let sighting = try SampleSighting(daemon, path: mount)
        let poll = try WatchProcess(daemon.clientCommand(["status", "--path", mount, "--format", "json", "--after", "\(seq)"], environment: [:]))
        try #require(sighting.waitForSamples(10, seconds: 10), "the daemon sampled the idle disk \(sighting.readings().count) times")
        sighting.stop()
        #expect(poll.lines.isEmpty && poll.process.isRunning, "\(poll.lines) \(poll.stderrText.value)")
        try Data(count: 20 << 20).write(to: URL(fileURLWithPath: mount + "/data"))
        let line = try poll.waitForLine(timeout: 5)
        #expect((Self.seq(line) ?? 0) > seq, "\(line)")
        // The publish of the write under way or done: more used than before, at most df's now.
        let before = (WatchProcess.json(now.stdout)?["used_bytes"] as? NSNumber)?.uint64Value ?? 0
        let used = (WatchProcess.json(line)?["used_bytes"] as? NSNumber)?.uint64Value ?? 0
        let df = try DiskFree.of(mount)
        #expect(used > before && used <= df.usedBytes, "\(line)")
        #expect(waitUntil(seconds: 5) { !poll.process.isRunning })
        #expect(poll.process.terminationStatus == 0)
    }

    @Test(Prerequisite.enabled(SampleSighting.available, SampleSighting.requirement))
    func everyPathsSeqCountsWithAll() throws {
        let scratch = try ScratchDirectory("long-poll-all")
        let first = try scratch.mountTmpfs(at: "one", options: "size=20m")
        let second = try scratch.mountTmpfs(at: "two", options: "size=20m")
        let daemon = try UserServiceDaemon(arguments: ["--path", first, "--path", second, "--interval", "100ms"])
        try daemon.waitUntilAnswering()
        let now = try daemon.usedspace(["status", "--all", "--format", "json"])
        // One object per line, one line per path.
        let objects = now.stdout.split(separator: "\n").compactMap { WatchProcess.json(String($0)) }
        let seqs = objects.compactMap { ($0["seq"] as? NSNumber)?.uint64Value }
        try #require(seqs.count == 2, "\(now.stdout)")
        #expect(objects.map { $0["path"] as? String } == [first, second])

        let sighting = try SampleSighting(daemon, paths: [first, second])
        let poll = try WatchProcess(daemon.clientCommand(["status", "--all", "--format", "json", "--after", seqs.map(String.init).joined(separator: ",")],
                                                         environment: [:]))
        // Nothing while the daemon samples the idle disks.
        try #require(sighting.waitForSamples(10, seconds: 10), "the daemon sampled the idle disks \(sighting.counts) times")
        sighting.stop()
        #expect(poll.lines.isEmpty && poll.process.isRunning, "\(poll.lines)")
        // A write on the second path alone ends the wait; both paths are in the answer.
        try Data(count: 5 << 20).write(to: URL(fileURLWithPath: second + "/data"))
        #expect(waitUntil(seconds: 5) { !poll.process.isRunning }, "\(poll.lines) \(poll.stderrText.value)")
        // Its output is read on another thread, which may not have it all yet.
        _ = waitUntil(seconds: 2) { poll.lines.count >= 2 }
        let answer = poll.lines.compactMap(WatchProcess.json)
        #expect(answer.map { $0["path"] as? String } == [first, second], "\(poll.lines)")
        #expect((answer.last?["seq"] as? NSNumber)?.uint64Value ?? 0 > seqs[1], "\(poll.lines)")
        #expect((answer.first?["seq"] as? NSNumber)?.uint64Value == seqs[0], "\(poll.lines)")
    }

    @Test func aReaderThatGoesAwayEndsItAndWithoutADaemonItAnswersAtOnce() throws {
        let daemon = try UserServiceDaemon(arguments: ["--path", "~"])
        try daemon.waitUntilAnswering()
        let now = try daemon.usedspace(["status", "--format", "json"])
        let seq = try #require(Self.seq(now.stdout), "\(now.stdout)")

        // The widget is gone: its reader, the only holder of the pipe's other end (a shell's
        // pipeline, so that no other process of the test's can have inherited it), exits
        // after 1 s; the poll ends with it, and the pipeline within a second or two more.
        let session = daemon.manager.userCommand
        let pipeline = "\(quoted(CommandRunner.usedspace)) status --format json --after \(seq) | { sleep 1; exit 0; }"
        let started = Date()
        let ended = try CommandRunner.run(session.executable, session.arguments + ["/bin/sh", "-c", pipeline],
                                          environment: daemon.manager.environment, timeout: 30)
        let seconds = Date().timeIntervalSince(started)
        print("measured: a long poll ended \(String(format: "%.2f", seconds - 1)) s after its reader")
        #expect(ended.status == 0 && seconds < 3, "still waiting \(seconds) s after its reader left: \(ended.stderr)")

        // No daemon: the client samples by itself and answers at once, as status always does.
        try daemon.stopSocket()
        let direct = try daemon.usedspace(["status", "--format", "json", "--after", "\(seq)"], timeout: 5)
        #expect(direct.status == 0 && WatchProcess.json(direct.stdout)?["used_percent"] is Int, "\(direct.stdout) \(direct.stderr)")
    }
}
