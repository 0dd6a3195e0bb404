import Foundation
import Testing

/// usedspaced as a real systemd user service of an unprivileged user, as on a login: socket
/// activation, Type=notify with STATUS, the watchdog, reload, a clean stop, and structured
/// journal entries.
@Suite(.serialized, Prerequisite.enabled(SystemdUserManager.unprivilegedAvailable, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct DaemonServiceTests {
    @Test func socketActivationStartsTheDaemonOnTheFirstQuery() throws {
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        try manager.installUnits()
        #expect(try manager.systemctl("start", "usedspace.socket").status == 0)
        #expect(try manager.property("usedspace.service", "ActiveState") == "inactive")
        #expect(FileManager.default.fileExists(atPath: manager.socketPath))

        let result = try manager.usedspace("status", "--format", "json")
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"source\":\"daemon\""), "\(result.stdout) \(result.stderr)")
        #expect(try manager.property("usedspace.service", "ActiveState") == "active")
        #expect(try manager.property("usedspace.service", "SubState") == "running")
    }

    @Test func readyAndStatusAreVisibleToSystemctl() throws {
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        try manager.installUnits()
        let start = try manager.systemctl("start", "usedspace.service")
        #expect(start.status == 0, "\(start.stderr)")
        // Type=notify: `start` returns only after READY=1, and by then STATUS= is set.
        let status = try manager.property("usedspace.service", "StatusText")
        #expect(status.wholeMatch(of: /\d+% used of \/.*/) != nil, "\(status)")
        #expect(try manager.property("usedspace.service", "WatchdogUSec") == "30s")
        let pid = try manager.property("usedspace.service", "MainPID")
        #expect(Int(pid) ?? 0 > 0)
    }

    @Test(Prerequisite.root, Prerequisite.enabled(SampleSighting.available, SampleSighting.requirement))
    func publishesARealChangeAndNotASubThresholdOne() throws {
        let scratch = try ScratchDirectory("svc-tmpfs")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        try manager.writeConfig("[daemon]\npath = \(mount)\ninterval = 100ms\n")
        try manager.installUnits()
        #expect(try manager.systemctl("start", "usedspace.service").status == 0)
        let client = try manager.client()
        let first = try client.request("subscribe format=json")
        let seq = try #require(first.json?["seq"] as? Int)
        #expect(first.json?["mountpoint"] as? String == mount)

        let daemon = try #require(pid_t(try manager.property("usedspace.service", "MainPID")))
        try whileStopped(daemon) { try Data(count: 2 << 20).write(to: URL(fileURLWithPath: mount + "/data")) }
        let update = try #require(try client.readFrame(timeout: 5))
        #expect(update.header == "update 1")
        #expect(update.json?["seq"] as? Int == seq + 1)

        // A 4 KiB page, 0.004 %: once the daemon has sampled it, nothing is published.
        let sighting = try SampleSighting(pid: daemon, path: mount)
        try Data(count: 4096).write(to: URL(fileURLWithPath: mount + "/page"))
        try #require(try sighting.waitForSampleOfNow(), "the daemon did not sample the 4 KiB page")
        sighting.stop()
        #expect(throws: HarnessFailure.self) { try client.readFrame(timeout: 0.5) } // an observation window after that sample
        // 2 MiB of 100 MiB: the status line says the new share, df's Use%.
        let percent = try #require(update.json?["used_percent"] as? Int)
        #expect(try manager.property("usedspace.service", "StatusText").hasPrefix("\(percent)% used of "))
    }

    /// The snapshot of the last run is served at once, marked stale, even while the
    /// filesystem does not answer: a FUSE mount whose statfs hangs.
    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func thePersistedSnapshotIsServedAtOnceAfterARestart() throws {
        let hanging = try HangingMount()
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        try manager.writeConfig("[daemon]\npath = \(hanging.mountPoint)\ninterval = 200ms\nsample-timeout = 3s\n")
        try manager.installUnits()
        #expect(try manager.systemctl("start", "usedspace.socket").status == 0)
        let before = try #require(try manager.client().request("status json").json)
        #expect(before["state"] as? String == "fresh")
        #expect(before["used_bytes"] as? Int == 600 * 4096)
        #expect(try manager.systemctl("stop", "usedspace.service").status == 0)

        hanging.hang()
        let started = Date()
        let client = try manager.client()
        let restored = try #require(try client.request("status json", timeout: 10).json)
        let elapsed = Date().timeIntervalSince(started)
        #expect(restored["state"] as? String == "stale")
        #expect(restored["seq"] as? Int == before["seq"] as? Int)
        #expect(restored["used_bytes"] as? Int == 600 * 4096)
        #expect(elapsed < 1.5, "answered after \(elapsed) s; the sample timeout is 3 s")

        // When the mount answers again, a fresh snapshot follows.
        try hanging.report(blocks: 1000, free: 100, available: 50)
        hanging.release()
        #expect(waitUntil(seconds: 10) {
            let json = try? manager.client().request("status json").json
            return json?["state"] as? String == "fresh" && json?["used_bytes"] as? Int == 900 * 4096
        })
    }

    @Test func theWatchdogRestartsADaemonThatStopsAnswering() throws {
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        try manager.installUnits(serviceDropIn: "WatchdogSec=2s\nTimeoutAbortSec=2s")
        #expect(try manager.systemctl("start", "usedspace.service").status == 0)
        let pid = try #require(Int32(try manager.property("usedspace.service", "MainPID")))
        // Answering, it pings: three watchdog intervals later it is the same process.
        let pinging = waitUntil(seconds: 6) { (try? manager.property("usedspace.service", "MainPID")) != String(pid) }
        #expect(!pinging, "restarted while answering: no WATCHDOG=1 came")
        #expect(try manager.property("usedspace.service", "NRestarts") == "0")
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        let restarted = waitUntil(seconds: 40) {
            let newPID = Int32((try? manager.property("usedspace.service", "MainPID")) ?? "") ?? 0
            return newPID != 0 && newPID != pid && (try? manager.property("usedspace.service", "ActiveState")) == "active"
        }
        #expect(restarted)
        #expect(try manager.property("usedspace.service", "NRestarts") == "1")
        let status = try manager.usedspace("status", "--format", "json")
        #expect(status.stdout.contains("\"source\":\"daemon\""))
    }

    /// After a crash, systemd holds the socket and starts the next instance: the first client
    /// waits in the backlog for it. It used to wait out RestartSec=1s and give up on the
    /// daemon (sampling by itself, without the daemon's estimate or seq).
    @Test func theFirstStatusAfterACrashIsAnsweredByTheNextInstance() throws {
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        try manager.installUnits()
        #expect(try manager.systemctl("start", "usedspace.socket").status == 0)
        #expect(try manager.usedspace("status", "--format", "json").stdout.contains("\"source\":\"daemon\""))
        for round in 1...3 {
            let pid = try #require(Int32(try manager.property("usedspace.service", "MainPID")))
            kill(pid, SIGSEGV)
            let started = Date()
            let status = try manager.usedspace("status", "--format", "json")
            let elapsed = Date().timeIntervalSince(started)
            print("measured: status right after crash \(round): \(Int(elapsed * 1000)) ms, \(status.stdout.contains("\"source\":\"daemon\"") ? "daemon" : "direct")")
            #expect(status.stdout.contains("\"source\":\"daemon\""), "round \(round): \(status.stdout) \(status.stderr)")
            // Out of systemd's start limit (5 starts in 10 s) for the next round: time passing,
            // not an event to wait for.
            usleep(round < 3 ? 2_500_000 : 0)
        }
    }

    /// A typo in the configuration: the daemon keeps running (with the defaults), the socket
    /// unit never fails however often it is activated, and the mistake is loud where the user
    /// looks: the client's stderr, systemctl status, a failing reload. Fixing the file and
    /// reloading clears it.
    @Test func aMistakeInTheConfigurationIsLoudAndNeverFailsTheSocket() throws {
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        try manager.installUnits()
        try manager.writeConfig("[daemon]\nintervall = 2s\n")
        #expect(try manager.systemctl("start", "usedspace.socket").status == 0)
        // It used to exit at once, every client activating it anew until systemd's start
        // limit failed the socket unit. Now the first client starts it, and it stays.
        for _ in 1...8 {
            let status = try manager.usedspace("status")
            #expect(status.status == 0)
            #expect(status.stderr.contains("usedspaced refused its configuration: ") && status.stderr.contains("/config:2: unknown key 'intervall'"),
                    "\(status.stderr)")
        }
        #expect(try manager.property("usedspace.service", "NRestarts") == "0")
        #expect(try manager.property("usedspace.service", "ActiveState") == "active")
        #expect(try manager.property("usedspace.socket", "ActiveState") == "active")
        let shown = try manager.systemctl("status", "usedspace.service")
        #expect(shown.stdout.contains("configuration refused: ") && shown.stdout.contains("/config:2: unknown key 'intervall'"), "\(shown.stdout)")
        let reload = try manager.systemctl("reload", "usedspace.service")
        #expect(reload.status != 0)

        try manager.writeConfig("[daemon]\ninterval = 2s\n")
        #expect(try manager.systemctl("reload", "usedspace.service").status == 0)
        let fixed = try manager.usedspace("status")
        #expect(fixed.status == 0 && fixed.stderr.isEmpty, "\(fixed.stderr)")
        #expect(try !manager.systemctl("status", "usedspace.service").stdout.contains("configuration refused"))
    }

    @Test func stopsCleanly() throws {
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        try manager.installUnits()
        let since = Date()
        #expect(try manager.systemctl("start", "usedspace.service").status == 0)
        let pid = try manager.property("usedspace.service", "MainPID")
        #expect(try manager.systemctl("stop", "usedspace.service").status == 0)
        #expect(try manager.property("usedspace.service", "ActiveState") == "inactive")
        #expect(try manager.property("usedspace.service", "Result") == "success")
        #expect(try manager.property("usedspace.service", "ExecMainStatus") == "0")
        #expect(waitUntil(seconds: 5) { (try? manager.journal(since: since, pid: pid))?.contains { $0["MESSAGE"] as? String == "stopping" } == true })
    }

    @Test func logsStructuredEntriesToTheJournal() throws {
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        try manager.installUnits()
        let since = Date()
        #expect(try manager.systemctl("start", "usedspace.service").status == 0)
        let pid = try manager.property("usedspace.service", "MainPID")
        let home = URL(fileURLWithPath: manager.user!.home).resolvingSymlinksInPath().path
        var published: [String: Any]?
        waitUntil(seconds: 5) {
            published = (try? manager.journal(since: since, pid: pid))?.first { ($0["MESSAGE"] as? String)?.hasPrefix("published ") == true }
            return published != nil
        }
        let entry = try #require(published)
        #expect(entry["USEDSPACE_PATH"] as? String == home)
        #expect(Double(entry["USEDSPACE_RATE"] as? String ?? "") != nil)
        #expect(entry["USEDSPACE_SEQ"] as? String != nil)
        #expect(entry["PRIORITY"] as? String == "6")
        #expect(entry["SYSLOG_IDENTIFIER"] as? String == "usedspaced")
        #expect(entry["_SYSTEMD_UNIT"] as? String == "usedspace.service" || entry["_SYSTEMD_USER_UNIT"] as? String == "usedspace.service")
    }

    @Test func reloadAppliesTheConfigurationAndKeepsTheOldOneWhenItIsBroken() throws {
        let scratch = try ScratchDirectory("svc-reload")
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        try manager.installUnits()
        #expect(try manager.systemctl("start", "usedspace.service").status == 0)
        let pid = try manager.property("usedspace.service", "MainPID")
        let since = Date()

        try manager.writeConfig("[daemon]\npath = \(scratch.path)\ninterval = 1s\n")
        #expect(try manager.systemctl("reload", "usedspace.service").status == 0)
        #expect(waitUntil(seconds: 5) {
            (try? manager.client().request("status json").json)?["path"] as? String == scratch.path
        })
        try manager.writeConfig("[daemon]\ninterval = 1 fortnight\n")
        // A refused file fails the reload (it used to exit 0), with the reason in its log.
        let refusedReload = try manager.systemctl("reload", "usedspace.service")
        #expect(refusedReload.status != 0, "\(refusedReload.stdout)\(refusedReload.stderr)")
        #expect(try manager.property("usedspace.service", "MainPID") == pid)
        #expect(try manager.property("usedspace.service", "ActiveState") == "active")
        let entries = try manager.journal(since: since, pid: pid)
        #expect(entries.contains { ($0["MESSAGE"] as? String)?.hasPrefix("reloaded ") == true })
        // The journal reads well by itself: the reason is in the message, and in a field.
        let refused = entries.first { ($0["MESSAGE"] as? String)?.hasPrefix("configuration refused, the previous one still runs: ") == true }
        #expect((refused?["MESSAGE"] as? String)?.contains("/config:2: interval: '1 fortnight'") == true, "\(String(describing: refused))")
        #expect((refused?["USEDSPACE_REASON"] as? String)?.contains("/config:2: ") == true)
        let status = try manager.systemctl("status", "usedspace.service")
        #expect(status.stdout.contains("configuration refused"), "\(status.stdout)")
        // Still the reloaded (good) configuration.
        #expect((try manager.client().request("status json").json)?["path"] as? String == scratch.path)
    }
}
