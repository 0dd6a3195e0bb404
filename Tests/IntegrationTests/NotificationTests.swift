import Foundation
import Testing

/// Low-space desktop notifications through a real session bus (dbus-daemon) to a real
/// notification server (dunst, under Xvfb).
@Suite(.serialized, Prerequisite.root, Prerequisite.enabled(NotificationDesktop.available,
                                                            "needs dbus-daemon, dunst (with dunstctl), dbus-send and Xvfb"))
struct NotificationTests {
    typealias Session = NotificationDesktop

    static func fill(_ mount: String, percent: Int) throws {
        try Data(count: 100 << 20 * percent / 100).write(to: URL(fileURLWithPath: mount + "/fill"))
    }

    static func shownCount(_ daemon: DaemonProcess) -> Int {
        daemon.stderrText.value.components(separatedBy: "showed a low-space notification").count - 1
    }

    static func lastID(_ daemon: DaemonProcess) -> UInt32? {
        daemon.stderrText.value.matches(of: /notification_id=(\d+)/).last.flatMap { UInt32($0.output.1) }
    }

    @Test func notifiesOnceThenAfterAFurtherDropSnoozesOnIgnoreAcrossRestartsAndClearsOnRecovery() throws {
        let session = try Session()
        let scratch = try ScratchDirectory("notify-fs")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let config = scratch.subpath("config")
        try "[notify]\nminimum-period = 1s\nagain-after-drop = 2%\n".write(toFile: config, atomically: true, encoding: .utf8)
        let state = scratch.subpath("state")
        let environment = ["DBUS_SESSION_BUS_ADDRESS": session.busAddress]
        func start() throws -> DaemonProcess {
            let daemon = try DaemonProcess(arguments: ["--path", mount, "--interval", "100ms", "--config", config],
                                           environment: environment, socketPath: scratch.subpath("s.sock"), stateDirectory: state)
            try daemon.waitUntilAnswering()
            return daemon
        }

        var daemon = try start()
        try Self.fill(mount, percent: 90)
        usleep(500_000)
        #expect(Self.shownCount(daemon) == 0, "10 % free is not low")

        try Self.fill(mount, percent: 96)
        #expect(waitUntil(seconds: 5) { Self.shownCount(daemon) == 1 }, "\(daemon.stderrText.value)")
        #expect(waitUntil(seconds: 5) { session.displayed == 1 })
        let first = try session.shown()
        #expect(first.first?.summary == "Low disk space on \(mount)")
        #expect(first.first?.body.hasPrefix("Only ") == true && first.first?.body.hasSuffix("is free of 104.9 MB.") == true, "\(first)")

        // A further drop of less than 2 points: nothing; of more, after the minimum period: again.
        // The fill above is not atomic (the file is truncated, then written while the daemon
        // samples every 100 ms), so the first notification may have come at any level from
        // 95 % up to 96 %: 0.3 points more stay under 2 from any of them, 2.4 reach 2 from all.
        usleep(1_200_000)
        try Data(count: 300 << 10).write(to: URL(fileURLWithPath: mount + "/more"))
        usleep(500_000)
        #expect(Self.shownCount(daemon) == 1)
        try Data(count: 2_500 << 10).write(to: URL(fileURLWithPath: mount + "/more"))
        #expect(waitUntil(seconds: 5) { Self.shownCount(daemon) == 2 })

        // Ignore: no more notifications, even after a further drop and a restart.
        let id = try #require(Self.lastID(daemon))
        try session.sendAction("ignore", id: id)
        #expect(waitUntil(seconds: 5) { daemon.stderrText.value.contains("low-space notification ignored; snoozing") })
        #expect(waitUntil(seconds: 5) { (try? String(contentsOfFile: state + "/alerts.json", encoding: .utf8))?.contains("\"snoozed_until\":0") == false })
        #expect(daemon.stop() == 0)
        daemon = try start()
        try Data(count: 2_600 << 10).write(to: URL(fileURLWithPath: mount + "/more"))
        usleep(1_500_000)
        #expect(Self.shownCount(daemon) == 0, "snoozed across the restart: \(daemon.stderrText.value)")

        // Recovery clears the snooze; running low again notifies again.
        try FileManager.default.removeItem(atPath: mount + "/more")
        try Self.fill(mount, percent: 50)
        #expect(waitUntil(seconds: 5) { daemon.stderrText.value.contains("disk space recovered on ") })
        try Self.fill(mount, percent: 97)
        #expect(waitUntil(seconds: 5) { Self.shownCount(daemon) == 1 })
    }

    /// A fast fill is told once (not at every publish while it goes on), and its
    /// notification is taken down when the fill stops.
    @Test func aFastFillIsNotifiedOnceAndWithdrawnWhenItStops() throws {
        let session = try Session()
        let scratch = try ScratchDirectory("notify-fill")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=1000000000")
        let daemon = try DaemonProcess(arguments: ["--path", mount, "--interval", "1s"],
                                       environment: ["DBUS_SESSION_BUS_ADDRESS": session.busAddress])
        try daemon.waitUntilAnswering()
        sleep(3)
        let writer = try SteadyWriter(path: mount + "/download", bytesPerSecond: 20_000_000)
        #expect(waitUntil(seconds: 30) { daemon.stderrText.value.contains("showed a fast-fill notification") }, "\(daemon.stderrText.value)")
        #expect(waitUntil(seconds: 5) { session.displayed == 1 })
        sleep(3)
        writer.stop()
        #expect(waitUntil(seconds: 20) { daemon.stderrText.value.contains("fast-fill alert on \(mount) is over; notification withdrawn") })
        #expect(waitUntil(seconds: 5) { session.displayed == 0 }, "taken down")
        #expect(daemon.stderrText.value.components(separatedBy: "showed a fast-fill notification").count == 2, "once")
        let shown = try session.shown()
        #expect(shown.count == 1 && shown[0].summary == "Disk filling fast on \(mount)", "\(shown)")
        #expect(shown.first?.body.hasPrefix("Space is going at 20 MB/s (seen for ") == true, "\(shown)")
    }

    /// A disk `path = auto` follows, low on space: notified. Unmounted: its watch ends and
    /// the notification, which would speak of a disk that is gone, is taken down.
    @Test func anUnmountedDisksNotificationIsWithdrawn() throws {
        let session = try Session()
        let scratch = try ScratchDirectory("notify-unmount")
        let mount = try scratch.mountExt4(at: "usb", megabytes: 32, reservedPercent: 0)
        var info = statvfs()
        #expect(statvfs(mount, &info) == 0)
        let blockSize = Int(info.f_frsize)
        // 98 % used: 2 % of the blocks left.
        let fill = (Int(info.f_bavail) - Int(info.f_blocks) / 50) * blockSize
        try Data(count: fill).write(to: URL(fileURLWithPath: mount + "/fill"))
        let daemon = try DaemonProcess(arguments: ["--path", "auto", "--interval", "100ms"],
                                       environment: ["DBUS_SESSION_BUS_ADDRESS": session.busAddress])
        try daemon.waitUntilAnswering()
        #expect(waitUntil(seconds: 10) { daemon.stderrText.value.contains("showed a low-space notification") && daemon.stderrText.value.contains(mount) },
                "\(daemon.stderrText.value)")
        #expect(waitUntil(seconds: 5) { session.displayed >= 1 })
        let summary = "Low disk space on \(mount)"
        #expect(try !session.history().contains { $0.summary == summary }, "on the screen before the unmount")
        _ = try CommandRunner.shell("umount \(quoted(mount))")
        #expect(waitUntil(seconds: 10) { daemon.stderrText.value.contains("\(mount) is no longer watched; low-space notification withdrawn") },
                "\(daemon.stderrText.value)")
        // By its summary, not by counting: the daemon follows every real filesystem, and other
        // suites' nearly full mounts come and go with notifications of their own.
        #expect(waitUntil(seconds: 5) { ((try? session.history()) ?? []).contains { $0.summary == summary } }, "taken down from the screen")
    }

    @Test func withoutASessionBusItLogsOnceAndCarriesOn() throws {
        let scratch = try ScratchDirectory("notify-nobus")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        try Self.fill(mount, percent: 97)
        let daemon = try DaemonProcess(arguments: ["--path", mount, "--interval", "100ms"],
                                       environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(scratch.path)/no-bus", "XDG_RUNTIME_DIR": scratch.path])
        try daemon.waitUntilAnswering()
        for size in [98, 99] {
            try Self.fill(mount, percent: size)
            usleep(300_000)
        }
        #expect(waitUntil(seconds: 5) { daemon.stderrText.value.contains("desktop notifications are unavailable") })
        #expect(daemon.stderrText.value.components(separatedBy: "desktop notifications are unavailable").count == 2, "logged once")
        #expect(try ProtocolClient(path: daemon.socketPath).request("ping").lines == ["pong"])
    }
}
