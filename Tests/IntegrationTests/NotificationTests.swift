import Foundation
import Testing

/// Low-space desktop notifications from the daemon as users run it (UserServiceDaemon:
/// socket-activated under the shipped unit in the user's manager) through the user's session
/// bus to a real notification server (dunst under Xvfb, started by D-Bus activation).
@Suite(.serialized, Prerequisite.root, Prerequisite.enabled(NotificationDesktop.available,
                                                            "needs dbus-daemon, dunst (with dunstctl), dbus-send and Xvfb"),
       Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct NotificationTests {
    static func fill(_ mount: String, percent: Int) throws {
        try Data(count: 100 << 20 * percent / 100).write(to: URL(fileURLWithPath: mount + "/fill"))
    }

    /// In `log`: the daemon's journal, or the part of it since a restart.
    static func shownCount(_ log: String) -> Int {
        log.components(separatedBy: "showed a low-space notification").count - 1
    }

    /// What the daemon itself (not a client sampling by itself) has published of `path`.
    static func published(_ daemon: UserServiceDaemon, _ path: String) -> [String: Any]? {
        (try? daemon.client().request("status format=json path=\(path)", timeout: 2))?.json
    }

    static func published(_ daemon: UserServiceDaemon, _ path: String, _ key: String) -> UInt64? {
        (published(daemon, path)?[key] as? NSNumber)?.uint64Value
    }

    /// Waits until the daemon has published what `mount` holds now (df's Used): it sampled
    /// the last write, and decided on a notification for it, before it answered.
    static func requirePublishOfNow(_ daemon: UserServiceDaemon, _ mount: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try DiskFree.of(mount).usedBytes
        try #require(waitUntil(seconds: 5) { published(daemon, mount, "used_bytes") == written },
                     "the daemon did not publish the write: \(published(daemon, mount, "used_bytes").map(String.init) ?? "no answer"), df \(written)",
                     sourceLocation: sourceLocation)
    }

    static func lastID(_ log: String) -> UInt32? {
        log.matches(of: /notification_id=(\d+)/).last.flatMap { UInt32($0.output.1) }
    }

    @Test func notifiesOnceThenAfterAFurtherDropSnoozesOnIgnoreAcrossRestartsAndClearsOnRecovery() throws {
        let scratch = try ScratchDirectory("notify-fs")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "100ms"],
                                           config: "[notify]\nminimum-period = 1s\nagain-after-drop = 2%\n")
        let session = try NotificationDesktop(session: daemon.manager)
        let state = daemon.stateDirectory
        // The journal holds every instance's lines: what the running one logged is what came
        // after its start.
        var start = 0
        func log() -> String { String(daemon.log.value.dropFirst(start)) }
        try daemon.waitUntilAnswering()

        try Self.fill(mount, percent: 90)
        try Self.requirePublishOfNow(daemon, mount)
        usleep(500_000) // an observation window after that publish: nothing is shown
        #expect(Self.shownCount(log()) == 0, "10 % free is not low")

        try Self.fill(mount, percent: 96)
        #expect(waitUntil(seconds: 5) { Self.shownCount(log()) == 1 }, "\(log())")
        #expect(waitUntil(seconds: 5) { session.displayed == 1 })
        let first = try session.shown()
        #expect(first.first?.summary == "Low disk space on \(mount)")
        #expect(first.first?.body.hasPrefix("Only ") == true && first.first?.body.hasSuffix("is free of 104.9 MB.") == true, "\(first)")

        // A further drop of less than 2 points: nothing; of more, after the minimum period: again.
        // The fill above is not atomic (the file is truncated, then written while the daemon
        // samples every 100 ms), so the first notification may have come at any level from
        // 95 % up to 96 %: 0.3 points more stay under 2 from any of them, 2.4 reach 2 from all.
        usleep(1_200_000) // the minimum period (1 s) passing: time, not an event
        try Data(count: 300 << 10).write(to: URL(fileURLWithPath: mount + "/more"))
        try Self.requirePublishOfNow(daemon, mount)
        usleep(500_000) // an observation window after that publish: nothing is shown
        #expect(Self.shownCount(log()) == 1)
        try Data(count: 2_500 << 10).write(to: URL(fileURLWithPath: mount + "/more"))
        #expect(waitUntil(seconds: 5) { Self.shownCount(log()) == 2 })

        // Ignore (the server's signal on the user's bus): no more notifications, even after a
        // further drop and a restart (stopped, then started again by the next client).
        let id = try #require(Self.lastID(log()))
        try session.sendAction("ignore", id: id)
        #expect(waitUntil(seconds: 5) { log().contains("low-space notification ignored; snoozing") })
        #expect(waitUntil(seconds: 5) { (try? String(contentsOfFile: state + "/alerts.json", encoding: .utf8))?.contains("\"snoozed_until\":0") == false })
        #expect(daemon.stop() == 0)
        start = daemon.log.value.count
        try daemon.waitUntilAnswering()
        try Data(count: 2_600 << 10).write(to: URL(fileURLWithPath: mount + "/more"))
        try Self.requirePublishOfNow(daemon, mount)
        usleep(500_000) // an observation window after that publish: nothing is shown
        #expect(Self.shownCount(log()) == 0, "snoozed across the restart: \(log())")

        // Recovery clears the snooze; running low again notifies again.
        try FileManager.default.removeItem(atPath: mount + "/more")
        try Self.fill(mount, percent: 50)
        #expect(waitUntil(seconds: 5) { log().contains("disk space recovered on ") })
        try Self.fill(mount, percent: 97)
        #expect(waitUntil(seconds: 5) { Self.shownCount(log()) == 1 })
    }

    /// A fast fill is told once (not at every publish while it goes on), and its
    /// notification is taken down when the fill stops.
    @Test func aFastFillIsNotifiedOnceAndWithdrawnWhenItStops() throws {
        let scratch = try ScratchDirectory("notify-fill")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=1000000000")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "1s"])
        let session = try NotificationDesktop(session: daemon.manager)
        try daemon.waitUntilAnswering()
        sleep(3) // a quiet disk first (three samples at 1 s), as before a real download
        let writer = try SteadyWriter(path: mount + "/download", bytesPerSecond: 20_000_000)
        #expect(waitUntil(seconds: 30) { daemon.log.value.contains("showed a fast-fill notification") }, "\(daemon.log.value)")
        #expect(waitUntil(seconds: 5) { session.displayed == 1 })
        // The fill goes on, notified: three more publishes of it (a sample a second), each a
        // look at the alert, and it is still shown once.
        let notified = try #require(Self.published(daemon, mount, "seq"))
        var last = Self.published(daemon, mount)
        try #require(waitUntil(seconds: 10) {
            last = Self.published(daemon, mount)
            return ((last?["seq"] as? NSNumber)?.uint64Value ?? 0) >= notified + 3 && last?["fast_fill"] is [String: Any]
        }, "the fill was not published again after seq \(notified): \(last.map { "\($0)" } ?? "no answer")")
        usleep(500_000) // an observation window after those publishes
        writer.stop()
        #expect(waitUntil(seconds: 20) { daemon.log.value.contains("fast-fill alert on \(mount) is over; notification withdrawn") })
        #expect(waitUntil(seconds: 5) { session.displayed == 0 }, "taken down")
        #expect(daemon.log.value.components(separatedBy: "showed a fast-fill notification").count == 2, "once")
        let shown = try session.shown()
        #expect(shown.count == 1 && shown[0].summary == "Disk filling fast on \(mount)", "\(shown)")
        #expect(shown.first?.body.hasPrefix("Space is going at 20 MB/s (seen for ") == true, "\(shown)")
    }

    /// A disk `path = auto` follows, low on space: notified. Unmounted: its watch ends and
    /// the notification, which would speak of a disk that is gone, is taken down.
    @Test func anUnmountedDisksNotificationIsWithdrawn() throws {
        let scratch = try ScratchDirectory("notify-unmount")
        let mount = try scratch.mountExt4(at: "usb", megabytes: 32, reservedPercent: 0)
        var info = statvfs()
        #expect(statvfs(mount, &info) == 0)
        let blockSize = Int(info.f_frsize)
        // 98 % used: 2 % of the blocks left.
        let fill = (Int(info.f_bavail) - Int(info.f_blocks) / 50) * blockSize
        try Data(count: fill).write(to: URL(fileURLWithPath: mount + "/fill"))
        let daemon = try UserServiceDaemon(arguments: ["--path", "auto", "--interval", "100ms"])
        let session = try NotificationDesktop(session: daemon.manager)
        try daemon.waitUntilAnswering()
        #expect(waitUntil(seconds: 10) { daemon.log.value.contains("showed a low-space notification") && daemon.log.value.contains(mount) },
                "\(daemon.log.value)")
        #expect(waitUntil(seconds: 5) { session.displayed >= 1 })
        let summary = "Low disk space on \(mount)"
        #expect(try !session.history().contains { $0.summary == summary }, "on the screen before the unmount")
        _ = try CommandRunner.shell("umount \(quoted(mount))")
        #expect(waitUntil(seconds: 10) { daemon.log.value.contains("\(mount) is no longer watched; low-space notification withdrawn") },
                "\(daemon.log.value)")
        // By its summary, not by counting: the daemon follows every real filesystem, and other
        // suites' nearly full mounts come and go with notifications of their own.
        #expect(waitUntil(seconds: 5) { ((try? session.history()) ?? []).contains { $0.summary == summary } }, "taken down from the screen")
    }

    /// A session whose bus is not there (its dbus.socket stopped): the address the manager
    /// hands the service leads nowhere.
    @Test func withoutASessionBusItLogsOnceAndCarriesOn() throws {
        let scratch = try ScratchDirectory("notify-nobus")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        try Self.fill(mount, percent: 97)
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "100ms"])
        let noBus = try daemon.manager.systemctl("stop", "dbus.socket", "dbus.service")
        try #require(noBus.status == 0, "\(noBus.stderr)")
        try daemon.waitUntilAnswering()
        for size in [98, 99] {
            try Self.fill(mount, percent: size)
            usleep(300_000) // the pace of the fills: a publish (and a try to notify) after each
        }
        #expect(waitUntil(seconds: 5) { daemon.log.value.contains("desktop notifications are unavailable") }, "\(daemon.log.value)")
        #expect(daemon.log.value.components(separatedBy: "desktop notifications are unavailable").count == 2, "logged once")
        #expect(try daemon.client().request("ping").lines == ["pong"])
    }
}
