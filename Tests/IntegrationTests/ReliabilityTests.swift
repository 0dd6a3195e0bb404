import Foundation
import Testing

/// Filesystems that hang, vanish or fail, and a daemon killed at any moment: usedspace keeps
/// answering, says what is wrong, recovers, and never loses or corrupts its state. The daemon
/// runs as users run it (UserServiceDaemon), but where a test kills it 200 times.
@Suite(Prerequisite.root, Prerequisite.enabled(UserServiceDaemon.available, "needs systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct ReliabilityTests {
    /// The daemon's status; the generous timeout is for a loaded CI machine (answer times
    /// are HostileClientTests' and ReliabilityTests' hung-mount test's business).
    static func json(_ daemon: some TestedDaemon) -> [String: Any]? {
        try? daemon.client().request("status json", timeout: 5).json
    }

    static func threads(_ daemon: some TestedDaemon) -> Int {
        guard let pid = daemon.pid else { return 0 }
        return (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }

    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func aHungMountNeitherSlowsTheSocketNorGrowsThreads() throws {
        let hanging = try HangingMount()
        let daemon = try UserServiceDaemon(arguments: ["--path", hanging.mountPoint, "--interval", "100ms", "--timeout", "1s"])
        try daemon.waitUntilAnswering()
        #expect(waitUntil(seconds: 5) { Self.json(daemon)?["state"] as? String == "fresh" })
        let threadsBefore = Self.threads(daemon)

        hanging.hang()
        var worst = 0.0
        var sawStale = false
        let deadline = Date().addingTimeInterval(4)
        while Date() < deadline {
            let started = Date()
            let client = try daemon.client()
            #expect(try client.request("ping", timeout: 2).lines == ["pong"])
            let state = try client.request("status json", timeout: 2).json
            worst = max(worst, Date().timeIntervalSince(started))
            if state?["state"] as? String == "stale" {
                sawStale = true
                #expect((state?["error"] as? String)?.contains("did not answer within 1 s") == true)
                #expect(state?["used_bytes"] as? Int == 600 * 4096, "the last numbers are kept")
            }
            #expect(Self.threads(daemon) <= threadsBefore, "no thread is added while a sample is stuck")
            usleep(50_000)
        }
        print("measured: hung mount for 4 s: worst ping+status \(Int(worst * 1000)) ms, threads \(threadsBefore) -> \(Self.threads(daemon))")
        #expect(sawStale)
        #expect(worst < 0.05, "a request waited \(worst) s while the mount hung")

        try hanging.report(blocks: 1000, free: 200, available: 100)
        hanging.release()
        #expect(waitUntil(seconds: 5) {
            let state = Self.json(daemon)
            return state?["state"] as? String == "fresh" && state?["used_bytes"] as? Int == 800 * 4096
        })
    }

    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func aFilesystemReportingZeroBlocksFailsWithAReasonAndRecovers() throws {
        let hanging = try HangingMount()
        let daemon = try UserServiceDaemon(arguments: ["--path", hanging.mountPoint, "--interval", "100ms"])
        try daemon.waitUntilAnswering()
        try hanging.report(blocks: 0, free: 0, available: 0)
        #expect(waitUntil(seconds: 5) { (Self.json(daemon)?["error"] as? String)?.hasSuffix("the filesystem reports 0 blocks") == true })
        #expect(Self.json(daemon)?["state"] as? String == "failed")
        try hanging.report(blocks: 1000, free: 500, available: 500)
        #expect(waitUntil(seconds: 5) { Self.json(daemon)?["state"] as? String == "fresh" })
    }

    @Test(Prerequisite.root) func aPathThatDisappearsOrIsUnmountedFailsAndRecovers() throws {
        let scratch = try ScratchDirectory("vanish")
        let mount = try scratch.mountTmpfs(at: "disk", options: "size=8m")
        try FileManager.default.createDirectory(atPath: mount + "/dir", withIntermediateDirectories: true)
        let inside = try UserServiceDaemon(arguments: ["--path", mount + "/dir", "--interval", "100ms"])
        let point = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "100ms"])
        try inside.waitUntilAnswering()
        try point.waitUntilAnswering()
        #expect(waitUntil(seconds: 5) { Self.json(point)?["mountpoint"] as? String == mount })

        try FileManager.default.removeItem(atPath: mount + "/dir")
        #expect(waitUntil(seconds: 5) { (Self.json(inside)?["error"] as? String) == "\(mount)/dir: no such file or directory" })
        try FileManager.default.createDirectory(atPath: mount + "/dir", withIntermediateDirectories: true)
        #expect(waitUntil(seconds: 5) { Self.json(inside)?["state"] as? String == "fresh" })

        try scratch.unmount(mount)
        #expect(waitUntil(seconds: 5) {
            (Self.json(point)?["error"] as? String)?.contains("nothing is mounted here any more") == true
        }, "\(String(describing: Self.json(point)))")
        #expect(Self.json(point)?["total_bytes"] is NSNull, "the root filesystem's numbers are not shown as the disk's")
        try scratch.mountTmpfs(at: "disk", options: "size=8m")
        #expect(waitUntil(seconds: 5) { Self.json(point)?["state"] as? String == "fresh" && Self.json(point)?["mountpoint"] as? String == mount })
    }

    /// A directory on the way closed to the user (the daemon runs as the user; root could
    /// read anything).
    @Test func aPathThatBecomesUnreadableFailsAndRecovers() throws {
        let scratch = try ScratchDirectory("unreadable")
        let guarded = scratch.subpath("guarded")
        try FileManager.default.createDirectory(atPath: guarded + "/inside", withIntermediateDirectories: true)
        let daemon = try UserServiceDaemon(arguments: ["--path", guarded + "/inside", "--interval", "100ms"])
        try daemon.waitUntilAnswering()
        #expect(waitUntil(seconds: 5) { Self.json(daemon)?["state"] as? String == "fresh" })
        chmod(guarded, 0o700)
        #expect(waitUntil(seconds: 5) { (Self.json(daemon)?["error"] as? String) == "\(guarded)/inside: permission denied" })
        chmod(guarded, 0o755)
        #expect(waitUntil(seconds: 5) { Self.json(daemon)?["state"] as? String == "fresh" })
    }

    /// Killed with SIGKILL at random moments while publishing all the time: the state file is
    /// always a complete snapshot file, and the next start serves it at once. Started by
    /// hand: under the unit, systemd would restart it after each kill (Restart=on-failure)
    /// and stop trying after five in ten seconds.
    @Test func killedAtRandomMomentsTheStateFileIsAlwaysWhole() throws {
        let scratch = try ScratchDirectory("sigkill")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=64m")
        let state = scratch.subpath("state")
        let socket = scratch.subpath("s.sock")
        let churn = FileChurn(in: mount, pauseMicroseconds: 5_000)
        defer { churn.stop() }
        var highestSeq = 0
        var kills = 0
        for round in 0..<200 {
            let daemon = try DaemonProcess(arguments: ["--path", mount, "--interval", "100ms", "--threshold", "0"],
                                           socketPath: socket, stateDirectory: state)
            if round > 0 {
                // What the last run left is served at once, before the first sample.
                let restored = try #require(try waitForAnswer(socket), "round \(round)")
                #expect((restored["seq"] as? Int ?? 0) >= highestSeq || restored["state"] as? String == "fresh",
                        "round \(round): seq \(String(describing: restored["seq"])) after \(highestSeq)")
            }
            usleep(UInt32.random(in: 0...250_000)) // a kill at a random moment of its run, not a wait
            kill(daemon.process.processIdentifier, SIGKILL)
            daemon.process.waitUntilExit()
            kills += 1
            guard let text = try? String(contentsOfFile: state + "/state.json", encoding: .utf8) else { continue }
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            #expect(object?["format"] as? String == "usedspace-state", "round \(round): a torn state file: \(text.prefix(200))")
            let snapshots = object?["snapshots"] as? [[String: Any]] ?? []
            #expect(snapshots.count == 1)
            let seq = (snapshots.first?["snapshot"] as? [String: Any])?["seq"] as? Int ?? 0
            #expect(seq >= highestSeq, "round \(round): the saved seq went back from \(highestSeq) to \(seq)")
            highestSeq = max(highestSeq, seq)
        }
        print("measured: \(kills) SIGKILLs while publishing, highest saved seq \(highestSeq), no torn state file")
        #expect(kills == 200)
        #expect(highestSeq > 50, "few publishes happened: \(highestSeq)")
    }

    private func waitForAnswer(_ socket: String) throws -> [String: Any]? {
        var answer: [String: Any]?
        waitUntil(seconds: 5) {
            answer = try? ProtocolClient(path: socket).request("status json", timeout: 1).json
            return answer != nil
        }
        return answer
    }

    /// The state directory on a filesystem of its own that is full, or read-only: said once,
    /// and serving goes on.
    @Test(arguments: ["full", "read-only"])
    func anUnwritableStateDirectoryIsLoggedOnceAndServingGoesOn(_ kind: String) throws {
        let scratch = try ScratchDirectory("state-\(kind)")
        let watched = try scratch.mountTmpfs(at: "watched", options: "size=64m")
        let daemon = try UserServiceDaemon(arguments: ["--path", watched, "--interval", "100ms", "--threshold", "0"], socket: false)
        let state = daemon.stateDirectory
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try daemon.manager.giveToUser(daemon.home + "/.local")
        try CommandRunner.shell("mount -t tmpfs -o size=16k,mode=0700,uid=\(daemon.user.uid),gid=\(daemon.user.gid) tmpfs \(quoted(state))")
        defer { _ = try? CommandRunner.shell("umount -l \(quoted(state))") }
        if kind == "full" {
            try? Data(count: 64 << 10).write(to: URL(fileURLWithPath: state + "/filler"))
        } else {
            try CommandRunner.shell("mount -o remount,ro \(quoted(state))")
        }
        try daemon.startSocket()
        try daemon.waitUntilAnswering()
        for round in 0..<10 {
            try Data(count: (round % 2 + 1) << 20).write(to: URL(fileURLWithPath: watched + "/churn"))
            usleep(150_000) // the pace of the writes: publishes (and saves) go on between them
            #expect(Self.json(daemon)?["state"] as? String == "fresh")
        }
        let log = daemon.log.value
        #expect(log.components(separatedBy: "cannot save the state file").count == 2, "logged once: \(log)")
        #expect(log.contains(kind == "full" ? "No space left on device" : "Read-only file system"))
        if kind == "full" {
            // The next publish after space comes back saves again.
            try FileManager.default.removeItem(atPath: state + "/filler")
            try FileManager.default.removeItem(atPath: watched + "/churn")
            #expect(waitUntil(seconds: 5) { daemon.log.value.contains("the state file is being saved again") })
            #expect(FileManager.default.fileExists(atPath: state + "/state.json"))
        }
    }
}
