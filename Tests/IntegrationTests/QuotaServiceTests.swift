import Foundation
import Testing

/// A btrfs qgroup limit on the user's subvolume, through the daemon as users run it
/// (socket-activated under the shipped unit in the user's manager): the user fills the
/// subvolume to its limit as df still shows the filesystem nearly empty; the bar, its level
/// and a low-space notification follow the quota, JSON keeps df's numbers beside it; the
/// limit lifted, the bar is df's again.
@Suite(.serialized, BtrfsMount.prerequisite,
       Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"),
       Prerequisite.enabled(NotificationDesktop.available, "needs dbus-daemon, dunst (with dunstctl), dbus-send and Xvfb"))
struct QuotaServiceTests {
    @Test func theBarAndTheNotificationFollowTheQuotaBeforeDfNotices() throws {
        let mount = try BtrfsMount("quota-service", sizes: [1200])
        let home = mount.mountPoint + "/home"
        try CommandRunner.shell("btrfs subvolume create \(quoted(home)) >/dev/null && btrfs quota enable \(quoted(mount.mountPoint))"
                                + " && btrfs qgroup limit 50M \(quoted(home))")
        let daemon = try UserServiceDaemon(arguments: ["--path", home, "--interval", "200ms"])
        try daemon.manager.giveToUser(home)
        let desktop = try NotificationDesktop(session: daemon.manager)
        try daemon.waitUntilAnswering()

        // Before a write the quota binds already: it leaves 50 MiB, the filesystem 1 GB.
        var line = ""
        #expect(waitUntil(seconds: 10) {
            line = (try? daemon.usedspace(["status", "--path", home]).stdout) ?? ""
            return line.hasSuffix("(quota)\n")
        }, "\(line) \(daemon.log.text)")
        // The user writes 50 MB of the 50 MiB allowed (the kernel counts them at the commit).
        let write = try daemon.manager.runAsUser("/bin/sh", ["-c", "head -c 50000000 /dev/zero > \(quoted(home + "/fill"))"])
        try #require(write.status == 0, "\(write.stderr)")
        try mount.sync()
        #expect(waitUntil(seconds: 15) {
            line = (try? daemon.usedspace(["status", "--path", home]).stdout) ?? ""
            return line.contains("95.") || line.contains("96.")
        }, "\(line) \(daemon.log.text)")
        #expect(line.hasSuffix("(quota)\n"), "\(line)")

        // JSON: df's numbers (a few percent), and the quota's beside them.
        let json = try daemon.usedspace(["status", "--path", home, "--format", "json"])
        let object = try #require(WatchProcess.json(json.stdout), "\(json.stdout)")
        let quota = try #require(object["quota"] as? [String: Any], "\(json.stdout)")
        #expect(quota["kind"] as? String == "btrfs-referenced" && (quota["limit_bytes"] as? NSNumber)?.uint64Value == 50 << 20)
        #expect((object["used_percent"] as? Int ?? 100) < 20 && (quota["used_percent"] as? Int ?? 0) >= 96, "\(json.stdout)")
        let df = try DiskFree.of(home)
        #expect((object["used_bytes"] as? NSNumber)?.uint64Value == df.usedBytes)

        // The level is the quota's: critical, where df's figures are nowhere near a limit.
        let waybar = try daemon.usedspace(["status", "--path", home, "--format", "waybar", "--warn", "80%", "--critical", "90%"])
        #expect(waybar.stdout.contains(#""class":"critical""#) || waybar.stdout.contains(#""class":["critical""#), "\(waybar.stdout)")

        // A low-space notification for the quota (the default: at most 5 % and 1 GiB free).
        #expect(waitUntil(seconds: 15) { desktop.displayed >= 1 }, "\(daemon.log.text)")
        let shown = try desktop.shown()
        #expect(shown.contains { $0.summary == "Low disk space on \(home)" || $0.summary == "Low disk space on \(mount.mountPoint)" }, "\(shown)")

        // The limit lifted: df's bar again, at the next sample.
        try CommandRunner.shell("btrfs qgroup limit none \(quoted(home))")
        #expect(waitUntil(seconds: 10) {
            line = (try? daemon.usedspace(["status", "--path", home]).stdout) ?? ""
            return !line.contains("(quota)") && !line.isEmpty
        }, "\(line)")
    }
}
