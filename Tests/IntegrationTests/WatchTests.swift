import Foundation
import Testing

/// `usedspace watch` as a status bar runs it: pushed updates, fallback, reconnect, clicks.
@Suite struct WatchTests {
    static func environment(socket: String) -> [String: String] {
        ["USEDSPACE_SOCKET": socket, "HOME": userHome, "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": "/nonexistent"]
    }

    /// A change on a real tmpfs reaches a running watch by push: the watch does not wake up
    /// at all while nothing changes (the daemon sampling all along), and a sub-threshold
    /// change the daemon has sampled produces no output.
    @Test(Prerequisite.root, Prerequisite.enabled(SampleSighting.available, SampleSighting.requirement))
    func changesArePushedAndNothingElse() throws {
        let scratch = try ScratchDirectory("watch-push")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "100ms"])
        try daemon.waitUntilAnswering()
        let watch = try daemon.watch(["--path", mount, "--format", "json"])
        let first = try #require(WatchProcess.json(try watch.waitForLine()))
        #expect(first["source"] as? String == "daemon")

        // Idle: no change, no output, and (no polling) hardly any wakeups of the watch, over
        // 2 s in which the daemon sampled the disk (about 20 times).
        let idle = try SampleSighting(daemon, path: mount)
        let before = try #require(watch.contextSwitches)
        usleep(2_000_000) // an observation window, of the watch's wakeups
        let after = try #require(watch.contextSwitches)
        idle.stop()
        #expect(idle.readings().count >= 10, "the daemon sampled the idle disk \(idle.readings().count) times in 2 s")
        #expect(after - before <= 2, "the watch woke up \(after - before) times in 2 s of nothing")
        #expect(watch.lines.count == 1)

        try daemon.whileStopped { try Data(count: 1 << 20).write(to: URL(fileURLWithPath: mount + "/big")) }
        let update = try #require(WatchProcess.json(try watch.waitForLine(after: 1, timeout: 5)))
        #expect(update["seq"] as? Int == (first["seq"] as? Int ?? 0) + 1)

        // Once the daemon has read the page's figures, a publish would follow within a
        // moment: none does.
        let sighting = try SampleSighting(daemon, path: mount)
        try Data(count: 4096).write(to: URL(fileURLWithPath: mount + "/page"))
        try #require(try sighting.waitForSampleOfNow(), "the daemon did not sample the 4 KiB change")
        sighting.stop()
        usleep(500_000) // an observation window: nothing is published after that sample
        #expect(watch.lines.count == 2, "a 4 KiB change (0.004 %) is below the threshold")
    }

    /// A template costs no wakeups: a bar-format watch with one still sleeps between
    /// publishes, and shows each publish in its template.
    @Test(Prerequisite.root, Prerequisite.enabled(SampleSighting.available, SampleSighting.requirement))
    func aWatchWithATemplateWakesOnlyOnAPublish() throws {
        let scratch = try ScratchDirectory("watch-template")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "100ms"])
        try daemon.waitUntilAnswering()
        let watch = try daemon.watch(["--path", mount, "--format", "i3blocks", "--icons", "▁▃▅▇", "--template", "{icon} {free:iec} of {total:iec}"])
        let first = try #require(WatchProcess.json(try watch.waitForLine()))
        #expect(first["full_text"] as? String == "▁ 100M of 100M", "\(first)")
        let sighting = try SampleSighting(daemon, path: mount)
        let before = try #require(watch.contextSwitches)
        usleep(2_000_000) // an observation window, of the watch's wakeups
        let after = try #require(watch.contextSwitches)
        sighting.stop()
        #expect(sighting.readings().count >= 10, "the daemon sampled the idle disk \(sighting.readings().count) times in 2 s")
        print("measured: a watch with a template woke \(after - before) times in 2 s without a publish")
        #expect(after - before <= 2, "the watch woke up \(after - before) times in 2 s of nothing")
        try daemon.whileStopped { try Data(count: 30 << 20).write(to: URL(fileURLWithPath: mount + "/big")) }
        let update = try #require(WatchProcess.json(try watch.waitForLine(after: 1, timeout: 5)))
        #expect(update["full_text"] as? String == "▃ 70M of 100M", "\(update)")
    }

    /// `systemctl --user restart usedspace`, in two steps: the daemon stops (the watch keeps
    /// its numbers, marked stale) and the next connection starts it again through the socket.
    @Test(Prerequisite.root) func reconnectsWhenTheDaemonRestartsShowingOnlyAStaleMark() throws {
        let daemon = try UserServiceDaemon(arguments: ["--interval", "200ms"])
        try daemon.waitUntilAnswering()
        let watch = try daemon.watch(["--format", "json"])
        try watch.waitForLine { WatchProcess.json($0)?["source"] as? String == "daemon" }
        #expect(daemon.stop() == 0)
        let stale = try #require(WatchProcess.json(try watch.waitForLine(after: 1, timeout: 5)))
        #expect(stale["state"] as? String == "stale")
        #expect((stale["error"] as? String)?.contains("daemon") == true)
        #expect(stale["used_bytes"] is Int, "the numbers are kept")

        try daemon.waitUntilAnswering()
        let fresh = try watch.waitForLine(after: 2, timeout: 10) {
            let json = WatchProcess.json($0)
            return json?["source"] as? String == "daemon" && json?["state"] as? String == "fresh"
        }
        #expect(WatchProcess.json(fresh) != nil)
        #expect(watch.process.isRunning)
    }

    /// Before the user enables the socket, a watch samples by itself; once it is, the watch
    /// takes the daemon's snapshots (its connection starts the daemon).
    @Test(Prerequisite.root) func samplesInProcessWithoutADaemonAndPicksOneUpLater() throws {
        let daemon = try UserServiceDaemon(arguments: ["--interval", "200ms"], socket: false)
        let watch = try daemon.watch(["--format", "json", "--interval", "200ms"])
        let direct = try #require(WatchProcess.json(try watch.waitForLine()))
        #expect(direct["source"] as? String == "direct")
        try daemon.startSocket()
        try watch.waitForLine(after: 1, timeout: 5) { WatchProcess.json($0)?["source"] as? String == "daemon" }
    }

    /// A filesystem remounted read-only (ext4's errors=remount-ro, an admin) is news even
    /// though no figure moved; remounted writable, too.
    @Test(Prerequisite.root) func aRemountReadOnlyIsShownAtOnce() throws {
        let directory = try ScratchDirectory("watch-remount")
        let mount = try directory.mountTmpfs(at: "fs", options: "size=16m")
        let watch = try WatchProcess(["--path", mount, "--format", "json", "--no-daemon", "--interval", "100ms"],
                                     environment: Self.environment(socket: directory.subpath("none.sock")))
        let first = try #require(WatchProcess.json(try watch.waitForLine()))
        #expect(first["read_only"] as? Bool == false)
        try CommandRunner.shell("mount -o remount,ro \(quoted(mount))")
        try watch.waitForLine(after: 1, timeout: 5) { WatchProcess.json($0)?["read_only"] as? Bool == true }
        try CommandRunner.shell("mount -o remount,rw \(quoted(mount))")
        try watch.waitForLine(after: 2, timeout: 5) { WatchProcess.json($0)?["read_only"] as? Bool == false }
    }

    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func aHungMountMakesTheBlockStaleNotFrozen() throws {
        let hanging = try HangingMount()
        let directory = try ScratchDirectory("watch-hang")
        let watch = try WatchProcess(["--path", hanging.mountPoint, "--format", "i3blocks", "--interval", "200ms", "--timeout", "500ms"],
                                     environment: Self.environment(socket: directory.subpath("none.sock")))
        let first = try #require(WatchProcess.json(try watch.waitForLine()))
        #expect((first["full_text"] as? String)?.hasSuffix("66.7%") == true)
        hanging.hang()
        let stale = try #require(WatchProcess.json(try watch.waitForLine(after: 1, timeout: 5)))
        #expect((stale["full_text"] as? String)?.contains("(stale)") == true)
        try hanging.report(blocks: 1000, free: 100, available: 100)
        hanging.release()
        let fresh = try #require(WatchProcess.json(try watch.waitForLine(after: 2, timeout: 5)))
        #expect((fresh["full_text"] as? String)?.hasSuffix("90.0%") == true)
    }

    /// A watch sampling a filesystem that hangs (its calls made by a probe child, not by a
    /// thread of its own, which would keep the process from exiting) ends with its bar.
    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func aWatchOfAHungFilesystemEndsWithItsBar() throws {
        let hanging = try HangingMount()
        let directory = try ScratchDirectory("watch-hang-end")
        let watch = try WatchProcess(["--path", hanging.mountPoint, "--format", "i3blocks", "--no-daemon", "--interval", "200ms", "--timeout", "500ms"],
                                     environment: Self.environment(socket: directory.subpath("none.sock")))
        defer { hanging.release() }
        _ = try watch.waitForLine()
        hanging.hang()
        _ = try watch.waitForLine(after: 1, timeout: 5) { $0.contains("(stale)") }
        watch.closeOutput()
        #expect(waitUntil(seconds: 2) { !watch.process.isRunning }, "the watch is stuck with its filesystem")
    }

    @Test func clicksToggleDetailsAndRunTheRightClickCommand() throws {
        let directory = try ScratchDirectory("watch-click")
        let marker = directory.subpath("right-clicked")
        let watch = try WatchProcess([
            "--format", "i3bar", "--interval", "200ms", "--click-right", "echo \"$USEDSPACE_MOUNTPOINT\" > \(quoted(marker))",
        ], environment: Self.environment(socket: directory.subpath("none.sock")))
        #expect(try watch.waitForLine() == #"{"version":1,"click_events":true}"#)
        try watch.waitForLine(after: 1) { $0 == "[" }
        let firstBlock = try watch.waitForLine(after: 2)
        #expect(firstBlock.hasPrefix("[{\"name\":\"usedspace\""))
        #expect(!firstBlock.contains("Used:"))

        // Exactly what i3 4.22 sends, then junk that must change nothing.
        watch.write("[\n{\"name\":\"usedspace\",\"instance\":\"\(userHome)\",\"button\":1,\"modifiers\":[],\"x\":1862,\"y\":9,\"relative_x\":37,\"relative_y\":9,\"output_x\":1862,\"output_y\":9,\"width\":122,\"height\":18}\n")
        let expanded = try watch.waitForLine(after: 3)
        #expect(expanded.hasPrefix(",[{") && expanded.contains("Used: ") && expanded.contains("Total: "))
        watch.writeBytes(Array("garbage\n,{\"button\":\n".utf8) + [0, 0xFF, 0xFE, 10] + Array(",{\"button\":3,\"name\":\"usedspace\"}\n".utf8))
        #expect(waitUntil(seconds: 5) { FileManager.default.fileExists(atPath: marker) })
        #expect((try? String(contentsOfFile: marker, encoding: .utf8))?.hasPrefix("/") == true)
        watch.write(",{\"name\":\"usedspace\",\"button\":1}\n")
        let collapsedAgain = try watch.waitForLine(after: 4)
        #expect(!collapsedAgain.contains("Used:"))
        #expect(watch.process.isRunning)

        // Behind a wrapper that merges i3status's blocks into the same bar, i3bar sends the
        // clicks on the clock here too: they are not ours. Then one of ours, whose right
        // click says when every event before it has been handled.
        try FileManager.default.removeItem(atPath: marker)
        let before = watch.lines.count
        watch.write(",{\"name\":\"tztime\",\"instance\":\"local\",\"button\":1,\"x\":1900,\"y\":9}\n"
                    + ",{\"name\":\"clock\",\"button\":1}\n,{\"button\":1}\n,{\"name\":\"clock\",\"button\":3}\n"
                    + ",{\"name\":\"usedspace\",\"instance\":\"\(userHome)\",\"button\":1}\n"
                    + ",{\"name\":\"usedspace\",\"instance\":\"\(userHome)\",\"button\":3}\n")
        #expect(waitUntil(seconds: 5) { FileManager.default.fileExists(atPath: marker) })
        let expandedOnce = try watch.waitForLine(after: before) { $0.contains("Used:") }
        #expect(expandedOnce.contains("Used:"))
        // Had another block's click toggled ours, a collapsed line would follow.
        #expect(!waitUntil(seconds: 1) { watch.lines.dropFirst(before).contains { !$0.contains("Used:") } }, "\(watch.lines.dropFirst(before))")
        #expect(watch.lines.count == before + 1, "\(watch.lines.dropFirst(before))")
    }

    /// A bar that dies (SIGKILL, or only its `sh -c` killed) leaves nobody reading the
    /// watch's output: the watch ends within a second, not at its next write, and leaves
    /// no control socket behind; nor does one ended by SIGTERM.
    @Test func aWatchEndsWhenNobodyReadsItAnyMore() throws {
        let directory = try ScratchDirectory("watch-orphan")
        let runtime = directory.subpath("runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var environment = Self.environment(socket: directory.subpath("none.sock"))
        environment["XDG_RUNTIME_DIR"] = runtime
        let blocks = runtime + "/usedspace/blocks"
        func socketCount() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: blocks)) ?? []).count }

        // The reader gone: nothing more is written on this quiet filesystem (interval 1 h).
        let orphan = try WatchProcess(["--format", "waybar", "--interval", "1h"], environment: environment)
        try orphan.waitForLine()
        #expect(socketCount() == 1)
        orphan.closeOutput()
        #expect(waitUntil(seconds: 1.5) { !orphan.process.isRunning }, "still running with nobody reading it")
        #expect(waitUntil(seconds: 1) { socketCount() == 0 }, "its control socket was left behind")

        let terminated = try WatchProcess(["--format", "polybar", "--interval", "1h"], environment: environment)
        try terminated.waitForLine()
        #expect(socketCount() == 1)
        terminated.signal(SIGTERM)
        #expect(waitUntil(seconds: 2) { !terminated.process.isRunning })
        #expect(terminated.process.terminationStatus == 0)
        #expect(socketCount() == 0, "SIGTERM left its control socket behind")
    }

    @Test func usr1TogglesTheDetailsForBarsWithoutClickEvents() throws {
        let directory = try ScratchDirectory("watch-usr1")
        let watch = try WatchProcess(["--format", "polybar", "--interval", "200ms"], environment: Self.environment(socket: directory.subpath("none.sock")))
        let first = try watch.waitForLine()
        #expect(!first.contains("Used:"))
        watch.signal(SIGUSR1)
        #expect(try watch.waitForLine(after: 1).contains("Used: "))
        watch.signal(SIGUSR1)
        #expect(!(try watch.waitForLine(after: 2)).contains("Used: "))
    }

    @Test func aBrokenConfigurationIsReportedAndTheDefaultsAreUsed() throws {
        let directory = try ScratchDirectory("watch-config")
        try "[bar]\nwarn = lots\n".write(toFile: directory.subpath("config"), atomically: true, encoding: .utf8)
        let watch = try WatchProcess(["--format", "i3blocks", "--config", directory.subpath("config")],
                                     environment: Self.environment(socket: directory.subpath("none.sock")))
        try watch.waitForLine()
        #expect(watch.stderrText.value.contains("config:2: warn: 'lots'"))
    }

    @Test(arguments: [
        (["--warn", "lots"], "invalid value 'lots' for '--warn'"),
        (["--format", "dzen"], "invalid value 'dzen' for '--format'"),
        (["--interval", "0"], "invalid value '0' for '--interval'"),
        (["--hide-below", "x%"], "invalid value 'x%' for '--hide-below': 'x%' is not a percentage such as 50%"),
        (["--bar-width", "-1"], "invalid value '-1' for '--bar-width'"),
        (["--colour", "red"], "unknown option '--colour' for 'usedspace watch'"),
    ])
    func badOptionsExitTwo(_ arguments: [String], _ message: String) throws {
        let result = try CommandRunner.run(CommandRunner.usedspace, ["watch"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderrLines.count == 1 && result.stderr.contains(message), "\(result.stderr)")
    }
}
