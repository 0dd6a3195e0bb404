import Foundation
import Testing

/// `path = auto`: the daemon watches every real filesystem and follows mounts and unmounts
/// as they happen, on real mounts. The machine's other mounts (and other tests' mounts,
/// made meanwhile) are watched too: every check here looks at this test's own paths. The
/// daemon runs as users run it (UserServiceDaemon), in a session without other people's
/// mounts that may hang; the tests hold HangingMountExclusion, so that no other test's
/// hanging FUSE mount is among the filesystems it follows (HangingMount holds it too).
@Suite(.serialized, Prerequisite.root, Prerequisite.enabled(UserServiceDaemon.available, "needs systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct AutomaticPathTests {
    /// Reads a subscriber's updates until one of them (a JSON snapshot) satisfies `wanted`.
    static func update(_ client: ProtocolClient, seconds: Double = 10, _ what: String = "", where wanted: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let frame = try? client.readFrame(timeout: max(deadline.timeIntervalSinceNow, 0.05)) else { continue }
            for line in frame.lines {
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], wanted(object) { return object }
            }
        }
        throw HarnessFailure("no update \(what.isEmpty ? "as wanted" : what) within \(seconds) s")
    }

    /// The paths `status all` shows now.
    static func watchedPaths(_ daemon: some TestedDaemon) throws -> [String] {
        let answer = try daemon.client().request("status json all", timeout: 15)
        return answer.lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["path"] as? String }
    }

    /// The highest "(read N)" of the daemon's log: how often it read the mount table.
    static func mountTableReads(_ daemon: some TestedDaemon) -> Int {
        let text = daemon.log.value
        var highest = 0
        for line in text.split(separator: "\n") where line.contains("mount table") {
            guard let range = line.range(of: "(read ") else { continue }
            let digits = line[range.upperBound...].prefix { $0.isNumber }
            highest = max(highest, Int(digits) ?? 0)
        }
        return highest
    }

    @Test func aMountIsWatchedAndItsUnmountEndsIt() throws {
        let exclusion = HangingMountExclusion.Hold()
        defer { withExtendedLifetime(exclusion) {} }
        let scratch = try ScratchDirectory("auto")
        let prometheus = scratch.subpath("prometheus")
        try FileManager.default.createDirectory(atPath: prometheus, withIntermediateDirectories: true)
        // --verbose: reads of the table that change nothing are logged too.
        let daemon = try UserServiceDaemon(arguments: ["--path", "auto", "--interval", "200ms", "--timeout", "1s", "--textfile-dir", prometheus, "--verbose"],
                                           dropIn: "ReadWritePaths=\(prometheus)")
        try daemon.manager.giveToUser(prometheus)
        try daemon.waitUntilAnswering()
        let subscriber = try daemon.client()
        #expect(try subscriber.request("subscribe json all", timeout: 15).header.hasPrefix("ok "))
        let watch = try daemon.watch(["--all", "--format", "json"])
        _ = try watch.waitForLine()
        let bar = try daemon.watch(["--all", "--format", "i3bar"])
        _ = try bar.waitForLine(after: 1)

        let disk = try scratch.mountExt4(at: "disk", megabytes: 32, reservedPercent: 5)
        let added = try Self.update(subscriber) { $0["path"] as? String == disk }
        #expect(added["fstype"] as? String == "ext4")
        #expect(added["mountpoint"] as? String == disk)
        #expect(added["state"] as? String == "fresh")
        #expect(try Self.watchedPaths(daemon).contains(disk))
        let textfile = prometheus + "/usedspace.prom"
        #expect(waitUntil(seconds: 5) { (try? String(contentsOfFile: textfile, encoding: .utf8))?.contains("mountpoint=\"\(disk)\"") == true },
                "the new filesystem's series appear")
        _ = try watch.waitForLine { WatchProcess.json($0)?["path"] as? String == disk }
        let block = "\"instance\":\"\(disk)\""
        _ = try bar.waitForLine(after: 1) { $0.contains(block) }

        // Not new filesystems: a bind mount of the disk (the same device) and a tmpfs (memory,
        // not storage: the rule of `usedspace list`).
        try FileManager.default.createDirectory(atPath: disk + "/sub", withIntermediateDirectories: true)
        let bind = scratch.subpath("bind")
        try FileManager.default.createDirectory(atPath: bind, withIntermediateDirectories: true)
        try CommandRunner.shell("mount --bind \(quoted(disk + "/sub")) \(quoted(bind))")
        defer { _ = try? CommandRunner.shell("umount -l \(quoted(bind))") }
        let memory = try scratch.mountTmpfs(at: "memory", options: "size=8m")
        let readsBefore = Self.mountTableReads(daemon)
        #expect(waitUntil(seconds: 5) { Self.mountTableReads(daemon) > readsBefore }, "the daemon read the table again")
        usleep(500_000) // an observation window: neither is added after that read
        let paths = try Self.watchedPaths(daemon)
        #expect(paths.filter { $0 == disk }.count == 1)
        #expect(!paths.contains(bind) && !paths.contains(memory), "\(paths)")

        try CommandRunner.shell("umount \(quoted(bind))")
        try scratch.unmount(disk)
        let ended = try Self.update(subscriber) { $0["path"] as? String == disk && $0["watch_ended"] as? Bool == true }
        #expect(ended["state"] as? String == "failed")
        #expect(ended["error"] as? String == "\(disk) was unmounted; no longer watched")
        #expect(ended["mountpoint"] as? String == disk)
        #expect(try !Self.watchedPaths(daemon).contains(disk))
        #expect(waitUntil(seconds: 5) { (try? String(contentsOfFile: textfile, encoding: .utf8)).map { !$0.contains("mountpoint=\"\(disk)\"") } == true },
                "its series are gone")
        // Other tests mount and unmount meanwhile: this disk's end, not any.
        let last = try watch.waitForLine { WatchProcess.json($0)?["watch_ended"] as? Bool == true && WatchProcess.json($0)?["path"] as? String == disk }
        let withBlock = bar.lines.lastIndex { $0.contains(block) } ?? 0
        let dropped = try bar.waitForLine(after: withBlock + 1) { $0.contains("full_text") }
        #expect(!dropped.contains(block), "i3bar's block of the unmounted filesystem is gone: \(dropped)")
        #expect(WatchProcess.json(last)?["state"] as? String == "failed")
        // Other suites' unmounts may be read in the same change: this disk among them. The
        // line is logged after the subscribers were told.
        #expect(waitUntil(seconds: 5) {
            daemon.log.value.split(separator: "\n").contains { line in
                line.range(of: "stopped watching ").map { line[$0.upperBound...].contains(disk) } ?? false
            }
        }, "\(daemon.log.value)")

        // Mounted again: followed once more.
        try CommandRunner.shell("mount -o loop \(quoted(scratch.subpath("disk.img"))) \(quoted(disk))")
        defer { _ = try? CommandRunner.shell("umount -l \(quoted(disk))") }
        _ = try Self.update(subscriber) { $0["path"] as? String == disk && $0["state"] as? String == "fresh" }
        #expect(daemon.stop() == 0)
    }

    /// The configuration of the README and usedspace.conf(5), as written: the home directory
    /// first, every other real filesystem after it, the home's filesystem once.
    @Test func theDocumentedConfigurationWatchesHomeFirstAndItsFilesystemOnce() throws {
        let exclusion = HangingMountExclusion.Hold()
        defer { withExtendedLifetime(exclusion) {} }
        let scratch = try ScratchDirectory("auto-documented")
        let disk = try scratch.mountExt4(at: "disk", megabytes: 32, reservedPercent: 5)
        let daemon = try UserServiceDaemon(config: "[daemon]\npath = ~\npath = auto\nsample-timeout = 1s\n")
        try daemon.waitUntilAnswering()
        let answer = try daemon.client().request("status json all", timeout: 15)
        let objects = answer.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let home = try #require(objects.first)
        #expect(home["path"] as? String == URL(fileURLWithPath: daemon.home).resolvingSymlinksInPath().path)
        let homeMount = try #require(home["mountpoint"] as? String)
        #expect(objects.dropFirst().allSatisfy { $0["mountpoint"] as? String != homeMount }, "the home's filesystem once: \(answer.lines)")
        #expect(objects.contains { $0["path"] as? String == disk })
        let client = try daemon.usedspace(["status", "--all"])
        // Other suites' mounts are watched too, and one may be failing meanwhile (a FUSE
        // filesystem that hangs on purpose): then the exit status is 1, for it alone.
        let failures = client.stderrLines.filter { $0.hasPrefix("usedspace: ") }
        #expect(client.status == 0 || (!failures.isEmpty && failures.allSatisfy { !$0.contains(disk) }), "\(client.stderr)")
        #expect(client.stdout.contains(disk), "\(client.stdout)")
    }

    /// Without a daemon, `status --all` shows what the daemon would watch now, and
    /// `config check` says what auto means; a misspelt auto names the right values.
    @Test func theClientUnderstandsAutoWithoutADaemon() throws {
        let exclusion = HangingMountExclusion.Hold()
        defer { withExtendedLifetime(exclusion) {} }
        let scratch = try ScratchDirectory("auto-client")
        let disk = try scratch.mountExt4(at: "disk", megabytes: 32, reservedPercent: 5)
        let config = scratch.subpath("config/usedspace/config")
        try FileManager.default.createDirectory(atPath: scratch.subpath("config/usedspace"), withIntermediateDirectories: true)
        try "[daemon]\npath = auto\n".write(toFile: config, atomically: true, encoding: .utf8)
        let environment = ["XDG_CONFIG_HOME": scratch.subpath("config"), "HOME": userHome, "USEDSPACE_SOCKET": scratch.subpath("none.sock")]
        // Without other people's mounts that may hang: what they would show is theirs.
        let isolated = ForeignMounts.isolated([CommandRunner.usedspace, "status", "--all", "--format", "json"])
        let status = try CommandRunner.run(isolated[0], Array(isolated.dropFirst()), environment: environment)
        #expect(status.status == 0, "\(status.stderr)")
        let objects = status.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.contains { $0["path"] as? String == disk && $0["source"] as? String == "direct" })
        #expect(objects.contains { $0["path"] as? String == "/" })
        let check = try CommandRunner.run(CommandRunner.usedspace, ["config", "check"], environment: environment)
        #expect(check.status == 0)
        #expect(check.stdout.contains("[daemon] watches every real filesystem mounted (auto:"), "\(check.stdout)")
        try "[daemon]\npath = ~\npath = auto-mount\n".write(toFile: config, atomically: true, encoding: .utf8)
        let typo = try CommandRunner.run(CommandRunner.usedspace, ["config", "check"], environment: environment)
        #expect(typo.status == 1)
        #expect(typo.stderrLines.map(String.init) == [
            "\(config):3: path: 'auto-mount' must be an absolute path, start with ~/, or be auto (every real filesystem mounted)",
        ])
    }

    /// `watch --all` without a daemon follows the mount table as the daemon does: a disk
    /// mounted gets a block, an unmounted one's ends.
    @Test func watchWithoutADaemonFollowsMounts() throws {
        let exclusion = HangingMountExclusion.Hold()
        defer { withExtendedLifetime(exclusion) {} }
        let scratch = try ScratchDirectory("auto-watch")
        let config = scratch.subpath("config/usedspace/config")
        try FileManager.default.createDirectory(atPath: scratch.subpath("config/usedspace"), withIntermediateDirectories: true)
        try "[daemon]\npath = auto\n".write(toFile: config, atomically: true, encoding: .utf8)
        let environment = ["XDG_CONFIG_HOME": scratch.subpath("config"), "HOME": userHome, "USEDSPACE_SOCKET": scratch.subpath("none.sock"),
                           "PATH": "/usr/bin:/bin"]
        let isolated = ForeignMounts.isolated([CommandRunner.usedspace, "watch", "--all", "--format", "json", "--interval", "200ms"])
        let watch = try WatchProcess(ClientCommand(executable: isolated[0], arguments: Array(isolated.dropFirst()), environment: environment))
        try watch.waitForLine { WatchProcess.json($0)?["path"] as? String == "/" }
        let disk = try scratch.mountExt4(at: "usb", megabytes: 32, reservedPercent: 0)
        let seen = try watch.waitForLine { WatchProcess.json($0)?["path"] as? String == disk }
        #expect(WatchProcess.json(seen)?["source"] as? String == "direct")
        #expect(WatchProcess.json(seen)?["state"] as? String == "fresh")
        let before = watch.lines.count
        _ = try CommandRunner.shell("umount \(quoted(disk))")
        let ended = try watch.waitForLine(after: before) { WatchProcess.json($0)?["path"] as? String == disk }
        #expect(WatchProcess.json(ended)?["watch_ended"] as? Bool == true, "\(ended)")
        #expect(WatchProcess.json(ended)?["state"] as? String == "failed")
    }

    /// `watch --all` without a daemon leaves out, as the daemon does (MountFollowing), a
    /// filesystem mounted where its user cannot reach (under a directory closed to it),
    /// rather than showing it failed for ever; a filesystem mounted later is still followed.
    @Test(Prerequisite.enabled(Prerequisite.hasCommand("setpriv"), "needs setpriv (util-linux)"))
    func watchWithoutADaemonLeavesOutAMountItsUserCannotReach() throws {
        let exclusion = HangingMountExclusion.Hold()
        defer { withExtendedLifetime(exclusion) {} }
        let scratch = try ScratchDirectory("auto-closed")
        try FileManager.default.createDirectory(atPath: scratch.subpath("config/usedspace"), withIntermediateDirectories: true)
        try "[daemon]\npath = auto\n".write(toFile: scratch.subpath("config/usedspace/config"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: scratch.subpath("closed"), withIntermediateDirectories: true)
        let closed = try scratch.mountExt4(at: "closed/disk", megabytes: 16, reservedPercent: 0)
        chmod(scratch.subpath("closed"), 0o700)
        let environment = ["XDG_CONFIG_HOME": scratch.subpath("config"), "HOME": "/nonexistent", "USEDSPACE_SOCKET": scratch.subpath("none.sock"),
                           "PATH": "/usr/bin:/bin"]
        // As nobody: root reaches every directory.
        let isolated = ForeignMounts.isolated(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                               CommandRunner.usedspace, "watch", "--all", "--format", "json", "--interval", "200ms"])
        let watch = try WatchProcess(ClientCommand(executable: isolated[0], arguments: Array(isolated.dropFirst()), environment: environment))
        try watch.waitForLine { WatchProcess.json($0)?["path"] as? String == "/" }
        // Mounted after the closed one was sampled (at the start): once this shows, the
        // watch has looked at the closed one, and read the table again.
        let open = try scratch.mountExt4(at: "open", megabytes: 16, reservedPercent: 0)
        try watch.waitForLine { WatchProcess.json($0)?["path"] as? String == open }
        #expect(!watch.lines.contains { WatchProcess.json($0)?["path"] as? String == closed }, "\(watch.lines)")
    }

    /// Thirty mounts at once (a container starting) are read as one change, or a few.
    @Test func aMountStormIsReadOnceNotPerMount() throws {
        let exclusion = HangingMountExclusion.Hold()
        defer { withExtendedLifetime(exclusion) {} }
        let scratch = try ScratchDirectory("storm")
        let daemon = try UserServiceDaemon(arguments: ["--path", "auto", "--timeout", "1s", "--verbose"])
        try daemon.waitUntilAnswering()
        let subscriber = try daemon.client()
        _ = try subscriber.request("subscribe json all", timeout: 15)
        // An ext4 image last, so that the storm ends with a filesystem the daemon shows.
        let image = scratch.subpath("last.img"), last = scratch.subpath("last")
        try CommandRunner.shell("truncate -s 16M \(quoted(image)) && mkfs.ext4 -q -F \(quoted(image)) && mkdir -p \(quoted(last))")
        let before = Self.mountTableReads(daemon)
        let targets = (1...30).map { scratch.subpath("t\($0)") }
        try CommandRunner.shell((targets.map { "mkdir -p \(quoted($0)) && mount -t tmpfs -o size=1m tmpfs \(quoted($0))" }
                                 + ["mount -o loop \(quoted(image)) \(quoted(last))"]).joined(separator: " && "))
        defer { _ = try? CommandRunner.shell((targets + [last]).map { "umount -l \(quoted($0))" }.joined(separator: "; ")) }
        _ = try Self.update(subscriber) { $0["path"] as? String == last }
        usleep(600_000) // an observation window: the reads that follow the storm are counted too
        let reads = Self.mountTableReads(daemon) - before
        // 31 changes; one read per 200 ms while they last (other tests may mount meanwhile).
        #expect(reads >= 1 && reads <= 8, "\(reads) reads of the mount table for 31 mounts")
        let unmountBefore = Self.mountTableReads(daemon)
        try CommandRunner.shell((targets + [last]).map { "umount \(quoted($0))" }.joined(separator: " && "))
        _ = try Self.update(subscriber) { $0["path"] as? String == last && $0["watch_ended"] as? Bool == true }
        usleep(600_000) // an observation window: the reads that follow the storm are counted too
        let unmountReads = Self.mountTableReads(daemon) - unmountBefore
        #expect(unmountReads >= 1 && unmountReads <= 8, "\(unmountReads) reads of the mount table for 31 unmounts")
        #expect(try daemon.client().request("ping").lines == ["pong"])
    }

    /// A FUSE filesystem that hangs in every call: watched when mounted, reported as not
    /// answering, the loop answering all along, and the local filesystems (sampled together
    /// by one thread, SamplingGroup) still sampled; a lazy unmount ends its watch though its
    /// thread is stuck in statfs.
    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, python3-fusepy and fusermount3"))
    func aHangingFilesystemIsWatchedWithoutStallingTheDaemon() throws {
        let scratch = try ScratchDirectory("auto-hang")
        let disk = try scratch.mountExt4(at: "disk", megabytes: 32, reservedPercent: 0)
        let daemon = try UserServiceDaemon(arguments: ["--path", "auto", "--interval", "200ms", "--timeout", "1s"])
        try daemon.waitUntilAnswering()
        let subscriber = try daemon.client()
        _ = try subscriber.request("subscribe json all", timeout: 15)
        let hanging = try HangingMount()
        let mountPoint = hanging.mountPoint
        _ = try Self.update(subscriber) { $0["path"] as? String == mountPoint && $0["state"] as? String == "fresh" }
        hanging.hang()
        let stuck = try Self.update(subscriber) { $0["path"] as? String == mountPoint && $0["state"] as? String != "fresh" }
        #expect((stuck["error"] as? String)?.contains("did not answer") == true, "\(stuck)")
        // The local disk keeps being sampled while the FUSE call hangs: each write of 4 MB
        // (an eighth of it) is a fresh snapshot with the next seq.
        var lastSeq = 0
        for round in 1...3 {
            try CommandRunner.shell("dd if=/dev/zero of=\(quoted(disk + "/fill\(round)")) bs=1M count=4 conv=fsync status=none")
            let moved = try Self.update(subscriber) { update in
                update["path"] as? String == disk && update["state"] as? String == "fresh" && (update["seq"] as? Int ?? 0) > lastSeq
                    && (update["used_bytes"] as? Int ?? 0) >= round * 4 << 20
            }
            lastSeq = moved["seq"] as? Int ?? 0
        }
        #expect(lastSeq >= 3)
        let started = Date()
        #expect(try daemon.client().request("ping").lines == ["pong"])
        #expect(Date().timeIntervalSince(started) < 1)
        _ = try CommandRunner.run("/usr/bin/fusermount3", ["-u", "-z", mountPoint], timeout: 10)
        let ended = try Self.update(subscriber) { $0["path"] as? String == mountPoint && $0["watch_ended"] as? Bool == true }
        #expect(ended["state"] as? String == "failed")
        let again = Date()
        #expect(try !Self.watchedPaths(daemon).contains(mountPoint))
        #expect(Date().timeIntervalSince(again) < 2, "status all does not wait for the ended watch")
        // Its thread is still in statfs, which the kernel does not interrupt once the FUSE
        // server has the request (a dead NFS server is the same): the process can exit only
        // when the call returns.
        hanging.release()
        #expect(daemon.stop() == 0)
    }

    /// A FUSE filesystem that hangs from its first call, mounted over a watched mount point
    /// (as over a USB disk's, or a home directory's): the next sample of that path hangs in
    /// the thread that samples the local filesystems together. That path is shown as not
    /// answering; the thread stays with it, and the other filesystems get a new one: they
    /// are never shown stale, and their changes keep coming.
    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, python3-fusepy and fusermount3"))
    func aFilesystemMountedOverAWatchedPathHoldsUpOnlyThatPath() throws {
        let scratch = try ScratchDirectory("over-mount")
        let covered = try scratch.mountExt4(at: "covered", megabytes: 32, reservedPercent: 0)
        let disk = try scratch.mountExt4(at: "disk", megabytes: 32, reservedPercent: 0)
        let daemon = try UserServiceDaemon(arguments: ["--path", covered, "--path", disk, "--interval", "200ms", "--timeout", "1s"])
        try daemon.waitUntilAnswering()
        let subscriber = try daemon.client()
        let initial = try subscriber.request("subscribe json all", timeout: 15).lines.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        for path in [covered, disk] {
            #expect(initial.contains { $0["path"] as? String == path && $0["state"] as? String == "fresh" }, "\(initial)")
        }
        let hanging = try HangingMount(over: covered, hanging: true)
        let stuck = try Self.update(subscriber, "not fresh of the covered path") { $0["path"] as? String == covered && $0["state"] as? String != "fresh" }
        #expect((stuck["error"] as? String)?.contains("did not answer") == true, "\(stuck)")
        // Each write of 4 MB (an eighth of the disk) is a fresh snapshot with the next seq,
        // while the covered path's call still hangs; nothing of the disk's is ever stale.
        var lastSeq = 0
        var diskStates: [String] = []
        for round in 1...3 {
            try CommandRunner.shell("dd if=/dev/zero of=\(quoted(disk + "/fill\(round)")) bs=1M count=4 conv=fsync status=none")
            let moved = try Self.update(subscriber, seconds: 5, "fresh of the disk after write \(round)") { update in
                if update["path"] as? String == disk { diskStates.append(update["state"] as? String ?? "?") }
                return update["path"] as? String == disk && update["state"] as? String == "fresh" && (update["seq"] as? Int ?? 0) > lastSeq
                    && (update["used_bytes"] as? Int ?? 0) >= round * 4 << 20
            }
            lastSeq = moved["seq"] as? Int ?? 0
        }
        #expect(diskStates.allSatisfy { $0 == "fresh" }, "\(diskStates)")
        #expect(try daemon.client().request("ping").lines == ["pong"])
        // The covered path's call returns once the server answers: it shows the FUSE
        // filesystem from then on, on a thread of its own.
        hanging.release()
        let back = try Self.update(subscriber, "fresh of the covered path") { $0["path"] as? String == covered && $0["state"] as? String == "fresh" }
        #expect(back["fstype"] as? String != "ext4", "\(back)")
        #expect(daemon.stop() == 0)
    }

    /// A reload switches auto on and off (all or nothing, as any reload); a restart watches
    /// what is mounted then, its last snapshot restored from the state file.
    @Test func reloadSwitchesAutoOnAndOffAndARestartRestores() throws {
        let exclusion = HangingMountExclusion.Hold()
        defer { withExtendedLifetime(exclusion) {} }
        let scratch = try ScratchDirectory("auto-reload")
        let disk = try scratch.mountExt4(at: "disk", megabytes: 32, reservedPercent: 5)
        let daemon = try UserServiceDaemon(config: "[daemon]\npath = /\ninterval = 200ms\nsample-timeout = 1s\n")
        try daemon.waitUntilAnswering()
        #expect(try Self.watchedPaths(daemon) == ["/"])
        // systemctl --user reload: ExecReload= answers once the file is applied, or fails.
        try daemon.manager.writeConfig("[daemon]\npath = /\npath = auto\ninterval = 200ms\nsample-timeout = 1s\n")
        let reload = try daemon.manager.systemctl("reload", "usedspace.service")
        #expect(reload.status == 0, "\(reload.stderr)")
        let withAuto = try Self.watchedPaths(daemon)
        #expect(withAuto.first == "/" && withAuto.contains(disk) && !withAuto.dropFirst().contains("/"), "\(withAuto)")
        // A typo: refused (the reload fails, the reason is in the journal), auto keeps running.
        try daemon.manager.writeConfig("[daemon]\npath = /\npath = autp\n")
        let refused = try daemon.manager.systemctl("reload", "usedspace.service")
        #expect(refused.status != 0)
        #expect(waitUntil(seconds: 5) { daemon.log.value.contains("path: 'autp' must be an absolute path, start with ~/, or be auto") },
                "\(daemon.log.value)")
        #expect(try Self.watchedPaths(daemon).contains(disk))
        // Restart: the disk's last snapshot is served at once, stale until sampled.
        #expect(daemon.stop() == 0)
        try daemon.manager.writeConfig("[daemon]\npath = /\npath = auto\ninterval = 1h\nsample-timeout = 1s\n")
        try daemon.waitUntilAnswering()
        var answer: ProtocolClient.Frame?
        #expect(waitUntil(seconds: 10) {
            answer = try? daemon.client().request("status json path=\(disk)", timeout: 15)
            return answer?.json?["state"] as? String == "fresh"
        })
        #expect(answer?.json?["path"] as? String == disk)
        // Its first sample after the restart follows the restored snapshot (seq 1 before).
        #expect((answer?.json?["seq"] as? Int ?? 0) >= 2, "the seq continues from the state file: \(answer?.lines ?? [])")
        // Off again: the disk's watch ends.
        try daemon.manager.writeConfig("[daemon]\npath = /\n")
        #expect(try daemon.manager.systemctl("reload", "usedspace.service").status == 0)
        #expect(try Self.watchedPaths(daemon) == ["/"])
    }
}
