import Foundation
import Testing

/// What the daemon serves when it runs as users run it: socket-activated under the shipped,
/// hardened unit in an unprivileged user manager (UserServiceDaemon). The sandbox remounts
/// the daemon's view of every filesystem read-only; what it reports must still be the
/// filesystems' own state.
@Suite(Prerequisite.root, Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct ShippedUnitTests {
    static func snapshots(_ result: CommandResult) -> [String: [String: Any]] {
        var byPath: [String: [String: Any]] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let path = object["path"] as? String else { continue }
            byPath[path] = object
        }
        return byPath
    }

    /// "Read-only" is the filesystem's (its superblock), not the sandbox's view of it: a
    /// read-write tmpfs and the home are not read-only in the status line, the details, the
    /// JSON or the Prometheus gauge; a filesystem mounted read-only is.
    @Test func readOnlyIsTheFilesystemsStateNotTheSandboxs() throws {
        let scratch = try ScratchDirectory("unit-ro")
        let writable = try scratch.mountTmpfs(at: "rw", options: "size=16m,mode=1777")
        let readOnly = scratch.subpath("ro")
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
        try CommandRunner.shell("truncate -s 8M \(quoted(readOnly + ".img")) && mkfs.ext4 -q -F \(quoted(readOnly + ".img"))"
            + " && mount -o loop,ro \(quoted(readOnly + ".img")) \(quoted(readOnly))")
        defer { _ = try? CommandRunner.shell("umount -l \(quoted(readOnly))") }
        let metrics = scratch.subpath("metrics")
        try FileManager.default.createDirectory(atPath: metrics, withIntermediateDirectories: true)

        let daemon = try UserServiceDaemon(arguments: ["--path", "~", "--path", writable, "--path", readOnly, "--interval", "200ms",
                                                       "--textfile-dir", metrics],
                                           dropIn: "ReadWritePaths=\(metrics)")
        try daemon.manager.giveToUser(metrics)
        try daemon.waitUntilAnswering()

        let json = try daemon.usedspace(["status", "--all", "--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let byPath = Self.snapshots(json)
        #expect(byPath.count == 3, "\(json.stdout)")
        for (path, snapshot) in byPath {
            #expect(snapshot["source"] as? String == "daemon", "\(path)")
            #expect(snapshot["read_only"] as? Bool == (path == readOnly), "\(path): \(snapshot)")
        }
        for path in [writable, daemon.home] {
            let line = try daemon.usedspace(["status", "--path", path])
            #expect(line.status == 0 && !line.stdout.contains("read-only"), "\(path): \(line.stdout)")
            let details = try daemon.usedspace(["status", "--path", path, "--details"])
            #expect(details.status == 0 && !details.stdout.contains("Mounted:"), "\(path): \(details.stdout)")
        }
        let readOnlyLine = try daemon.usedspace(["status", "--path", readOnly])
        #expect(readOnlyLine.stdout.contains("(read-only)"), "\(readOnlyLine.stdout)")

        // The node exporter's gauge.
        var gauges: [String: String] = [:]
        #expect(waitUntil(seconds: 10) {
            let text = (try? String(contentsOfFile: metrics + "/usedspace.prom", encoding: .utf8)) ?? ""
            gauges = Dictionary(text.split(separator: "\n").filter { $0.hasPrefix("usedspace_filesystem_read_only{") }.compactMap { line in
                guard let mount = line.firstMatch(of: /mountpoint="([^"]*)"/)?.output.1, let value = line.split(separator: " ").last else { return nil }
                return (String(mount), String(value))
            }, uniquingKeysWith: { first, _ in first })
            return gauges.count >= 3
        }, "\(gauges)")
        #expect(gauges[writable] == "0" && gauges[readOnly] == "1", "\(gauges)")
    }

    /// A filesystem filled past `free-below` is notified on the user's desktop (the session
    /// bus, dunst started by D-Bus activation), from inside the sandbox.
    @Test(Prerequisite.enabled(NotificationDesktop.available, "needs dbus-daemon, dunst (with dunstctl), dbus-send and Xvfb"))
    func aNearlyFullFilesystemIsNotified() throws {
        let scratch = try ScratchDirectory("unit-notify")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "200ms"],
                                           config: "[notify]\nfree-below = 10%\n")
        let desktop = try NotificationDesktop(session: daemon.manager)
        try daemon.waitUntilAnswering()
        try Data(count: 95 << 20).write(to: URL(fileURLWithPath: mount + "/fill"))
        #expect(waitUntil(seconds: 15) { desktop.displayed >= 1 }, "\(daemon.log.text)")
        let shown = try desktop.shown()
        #expect(shown.contains { $0.summary == "Low disk space on \(mount)" }, "\(shown); \(daemon.log.text)")
    }

    /// A watched filesystem that hangs (a dead sshfs) holds up neither a stop nor a restart:
    /// the daemon never enters it itself (a probe child does, and is left to exit when the
    /// server answers), so it stops at once, and the next client starts a new one.
    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func aHangingFilesystemHoldsUpNeitherAStopNorARestart() throws {
        let hanging = try HangingMount()
        let daemon = try UserServiceDaemon(arguments: ["--path", hanging.mountPoint, "--path", "~", "--interval", "100ms", "--timeout", "1s"])
        try daemon.waitUntilAnswering()
        #expect(waitUntil(seconds: 5) { (try? daemon.client().request("status json", timeout: 2).json?["state"] as? String) == "fresh" })
        hanging.hang()
        #expect(waitUntil(seconds: 5) {
            (try? daemon.client().request("status json path=\(hanging.mountPoint)", timeout: 2).json?["state"] as? String) == "stale"
        })
        let started = Date()
        #expect(daemon.stop() == 0)
        let stopTime = Date().timeIntervalSince(started)
        print("measured: systemctl stop with a hung watched filesystem: \(Int(stopTime * 1000)) ms")
        #expect(stopTime < 5, "\(stopTime) s")
        // Started again by the next client, while the old probe still waits for the server.
        try daemon.waitUntilAnswering(seconds: 10)
        let home = try #require(try daemon.client().request("status json path=\(daemon.home)", timeout: 2).json)
        #expect(home["state"] as? String == "fresh" || home["state"] as? String == "stale", "\(home)")
        hanging.release()
        #expect(daemon.stop() == 0)
    }
}
