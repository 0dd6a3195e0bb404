import Foundation
import Testing

/// The home directory on a network filesystem whose server died: every call on it hangs, in
/// state D, beyond the reach of signals. Showing another, healthy filesystem must never touch
/// it: no bar of a healthy filesystem freezes, no command sits in state D, and the daemon
/// starts and serves, saying what it could not read.
@Suite(.serialized) struct DeadHomeTests {
    /// A dead home with a configuration in it, and a healthy tmpfs beside it.
    final class Fixture {
        let hanging: HangingMount
        let scratch: ScratchDirectory
        let healthy: String
        let home: String

        init() throws {
            hanging = try HangingMount()
            let backingHome = hanging.backing + "/home"
            try FileManager.default.createDirectory(atPath: backingHome + "/.config/usedspace", withIntermediateDirectories: true)
            try "[bar]\nlabel = \"cfg \"\n".write(toFile: backingHome + "/.config/usedspace/config", atomically: true, encoding: .utf8)
            home = hanging.mountPoint + "/home"
            scratch = try ScratchDirectory("dead-home")
            healthy = try scratch.mountTmpfs(at: "healthy", options: "size=64m")
            // The configuration is readable while the server answers.
            guard FileManager.default.fileExists(atPath: home + "/.config/usedspace/config") else {
                throw HarnessFailure("hangfs does not show its backing directory")
            }
        }

        var environment: [String: String] {
            ["HOME": home, "PATH": "/usr/bin:/bin", "USEDSPACE_SOCKET": scratch.subpath("none.sock")]
        }
    }

    /// Runs a command while the mount hangs, waiting at most `seconds`. A command still
    /// running then is stuck; the mount is released so that it (and the test run) can end.
    static func run(_ arguments: [String], _ fixture: Fixture, seconds: Double) throws -> (result: CommandResult?, elapsed: Double) {
        let started = Date()
        let box = Locked<CommandResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        let environment = fixture.environment
        DispatchQueue.global().async {
            box.set(try? CommandRunner.run(CommandRunner.usedspace, arguments, environment: environment, timeout: 600))
            done.signal()
        }
        if done.wait(timeout: .now() + seconds) == .timedOut {
            fixture.hanging.release()
            done.wait()
            return (nil, Date().timeIntervalSince(started))
        }
        return (box.value, Date().timeIntervalSince(started))
    }

    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func statusOfAHealthyFilesystemDoesNotWaitOnADeadHome() throws {
        let fixture = try Fixture()
        fixture.hanging.hang()
        defer { fixture.hanging.release() }

        // Text and JSON read no configuration: nothing of the home is touched.
        let (plain, plainTime) = try Self.run(["status", "--path", fixture.healthy], fixture, seconds: 10)
        #expect(plain?.status == 0, "stuck for \(plainTime) s: \(plain?.stderr ?? "still running")")
        #expect(plain?.stdout.contains("%") == true)
        #expect(plainTime < 2, "\(plainTime) s")

        // The bar formats read the [bar] settings from the home: not waited for beyond a
        // moment (not the sample timeout, 5 s), with a word on stderr, and the block is
        // shown with the defaults.
        let (bar, barTime) = try Self.run(["status", "--format", "i3bar", "--path", fixture.healthy], fixture, seconds: 10)
        print("measured: status with a dead home: text \(Int(plainTime * 1000)) ms, i3bar \(Int(barTime * 1000)) ms")
        #expect(bar?.status == 0, "stuck for \(barTime) s: \(bar?.stderr ?? "still running")")
        #expect(bar?.stdout.contains("\"full_text\"") == true && bar?.stdout.contains("cfg ") == false)
        #expect(bar?.stderr.contains("did not answer within 250 ms") == true, "\(bar?.stderr ?? "")")
        #expect(barTime < 2, "\(barTime) s")
    }

    /// A bar started while the home is dead shows the healthy filesystem at once, with the
    /// defaults, and takes the configuration when the home answers again.
    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func aNewWatchShowsAtOnceAndTakesTheConfigurationWhenItArrives() throws {
        let fixture = try Fixture()
        fixture.hanging.hang()
        defer { fixture.hanging.release() }
        let started = Date()
        let watch = try WatchProcess(["--format", "i3bar", "--path", fixture.healthy, "--no-daemon", "--interval", "200ms"],
                                     environment: fixture.environment)
        defer {
            fixture.hanging.release()
            kill(watch.process.processIdentifier, SIGKILL)
        }
        let first = try watch.waitForLine(timeout: 10) { $0.contains("full_text") }
        let firstTime = Date().timeIntervalSince(started)
        print("measured: a new watch's first block with a dead home: \(Int(firstTime * 1000)) ms")
        #expect(firstTime < 2, "\(firstTime) s")
        #expect(!first.contains("cfg "), "\(first)")
        #expect(watch.stderrText.value.contains("did not answer within 250 ms"), "\(watch.stderrText.value)")

        fixture.hanging.release()
        let configured = try watch.waitForLine(timeout: 10) { $0.contains("full_text") && $0.contains("cfg ") }
        #expect(configured.contains("%"))
        #expect(watch.stderrText.value.contains("answered; its settings apply from now"), "\(watch.stderrText.value)")
    }

    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func aWatchOfAHealthyFilesystemKeepsUpdatingWhileTheHomeIsDead() throws {
        let fixture = try Fixture()
        fixture.hanging.hang()
        defer { fixture.hanging.release() }
        let watch = try WatchProcess(
            ["--format", "i3bar", "--path", fixture.healthy, "--no-daemon", "--interval", "200ms", "--timeout", "1s"],
            environment: fixture.environment)
        // Released before the watch is let go of: a watch stuck in the dead home (in state D)
        // could not exit, and its deinit would wait for it forever.
        defer {
            fixture.hanging.release()
            kill(watch.process.processIdentifier, SIGKILL)
        }
        // The i3bar header, the opening bracket, then the first status line.
        let first = try watch.waitForLine(timeout: 10) { $0.contains("full_text") }
        try Data(count: 16 << 20).write(to: URL(fileURLWithPath: fixture.healthy + "/filler"))
        let second = try watch.waitForLine(timeout: 10) { $0.contains("full_text") && $0 != first && !$0.hasPrefix("[") }
        #expect(second != first)
        #expect(watch.stderrText.value.contains("did not answer within 250 ms"), "\(watch.stderrText.value)")
    }

    /// A daemon (re)started while its home is dead answers at once, with the defaults, and
    /// says why; when the home answers again, its configuration applies and what its state
    /// directory held is taken over, never overwritten: the next seq comes after the saved one.
    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func theDaemonStartsAndServesWhenItsStateAndConfigurationAreOnADeadHome() throws {
        let fixture = try Fixture()
        let backingState = fixture.hanging.backing + "/home/.local/state/usedspace"
        try FileManager.default.createDirectory(atPath: backingState, withIntermediateDirectories: true)
        let saved = #"{"format":"usedspace-state","version":2,"snapshots":[{"watch":"\#(fixture.healthy)","snapshot":"#
            + #"{"version":1,"path":"\#(fixture.healthy)","mountpoint":"\#(fixture.healthy)","fstype":"tmpfs","block_size":4096,"#
            + #""total_blocks":16384,"free_blocks":16384,"available_blocks":16384,"total_inodes":100,"free_inodes":99,"#
            + #""state":"fresh","seq":5000,"sampled_at":"2026-11-20T10:00:00Z"}}]}"#
        try saved.write(toFile: backingState + "/state.json", atomically: true, encoding: .utf8)
        try "[daemon]\npath = \(fixture.healthy)\ninterval = 200ms\n".write(toFile: fixture.hanging.backing + "/home/.config/usedspace/config",
                                                                        atomically: true, encoding: .utf8)
        fixture.hanging.hang()
        defer { fixture.hanging.release() }
        let started = Date()
        let daemon = try DaemonProcess(arguments: ["--path", fixture.healthy, "--timeout", "1s"],
                                       environment: ["HOME": fixture.home, "XDG_CONFIG_HOME": fixture.home + "/.config"],
                                       stateDirectory: fixture.home + "/.local/state/usedspace")
        defer { fixture.hanging.release(); _ = daemon.stop() }
        try daemon.waitUntilAnswering(seconds: 10)
        let startTime = Date().timeIntervalSince(started)
        print("measured: daemon start with a dead home: \(Int(startTime * 1000)) ms")
        #expect(startTime < 2, "\(startTime) s")
        let client = try ProtocolClient(path: daemon.socketPath)
        let json = try #require(try client.request("status json", timeout: 2).json)
        #expect(json["path"] as? String == fixture.healthy)
        #expect(json["state"] as? String == "fresh")
        // Loud about what it could not read yet: the configuration (with what runs
        // meanwhile) and the state files (one wait for all of them).
        #expect((json["config_error"] as? String)?.contains("cannot read it yet: its filesystem did not answer within 250 ms") == true, "\(json)")
        #expect(daemon.stderrText.value.contains("the state file \(fixture.home)/.local/state/usedspace/state.json has not answered within 250 ms"),
                "\(daemon.stderrText.value)")

        // The home answers: the file's settings run, and the saved seq is carried on.
        fixture.hanging.release()
        #expect(waitUntil(seconds: 10) { daemon.stderrText.value.contains("read \(fixture.home)/.config/usedspace/config at last") },
                "\(daemon.stderrText.value)")
        #expect(waitUntil(seconds: 10) { daemon.stderrText.value.contains("read the state file at last") }, "\(daemon.stderrText.value)")
        let after = try #require(try client.request("status json", timeout: 2).json)
        #expect(after["config_error"] == nil, "\(after)")
        try Data(count: 8 << 20).write(to: URL(fileURLWithPath: fixture.healthy + "/filler"))
        #expect(waitUntil(seconds: 10) {
            ((try? client.request("status json", timeout: 2).json)?["seq"] as? Int ?? 0) > 5000
        }, "the next publish comes after the saved seq")
    }
}
