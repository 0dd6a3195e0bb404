import Foundation
import Testing

/// The daemon restarted (an upgrade, `systemctl --user restart`) while a watched network
/// filesystem hangs: a bar of a healthy filesystem, started before the restart, follows the
/// new daemon as quickly as it does when nothing hangs.
@Suite(Prerequisite.root, Prerequisite.enabled(UserServiceDaemon.available, "needs systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct RestartDuringOutageTests {
    /// How long the first write after the new daemon answers may take to reach the bar: 2 s,
    /// and half a second for a loaded machine.
    static let allowedSeconds = 2.5

    /// The first write after the new daemon answers reaches an i3bar `watch` of a tmpfs in
    /// time, while the sshfs mount the daemon also watches has a frozen server. `slowStart`:
    /// the new daemon answers only 1.5 s after the old one closed its connections (a loaded
    /// machine, an upgrade), longer than the bar waits for an answer before it samples by
    /// itself: it must still follow the daemon once that answers, not one interval later.
    @Test(Prerequisite.enabled(FrozenSshfsMount.available, "needs root, /dev/fuse, fuse3, sshfs and openssh-server"),
          arguments: [false, true])
    func aBarFollowsARestartedDaemonWhileASshfsMountHangs(slowStart: Bool) throws {
        let scratch = try ScratchDirectory("restart-outage")
        let healthy = try scratch.mountTmpfs(at: "fs", options: "size=100m,mode=0755")
        let sshfs = try FrozenSshfsMount(at: scratch.subpath("remote"))
        // Started by the first client that connects: the mount is there before.
        let daemon = try UserServiceDaemon(arguments: ["--path", healthy, "--path", sshfs.mountPoint, "--interval", "200ms", "-v"],
                                           dropIn: slowStart ? "ExecStartPre=/bin/sleep 1.5" : nil)
        try daemon.waitUntilAnswering()
        let watch = try daemon.watch(["--path", healthy, "--format", "i3bar"])
        try watch.waitForLine { $0.contains("usedspace") && $0.contains("0.0%") }

        sshfs.freeze()
        defer { sshfs.thaw() }
        // The outage, as the daemon sees it: its sample of the mount overran the timeout.
        #expect(waitUntil(seconds: 15) {
            (try? daemon.client().request("status json path=\(sshfs.mountPoint)", timeout: 2).json?["state"] as? String) == "stale"
        }, "\(daemon.log.text)")

        let before = try #require(daemon.pid)
        let restartedAt = Date()
        let restart = try daemon.manager.systemctl("restart", "--no-block", "usedspace.service")
        #expect(restart.status == 0, "\(restart.stderr)")
        #expect(waitUntil(seconds: 20) { daemon.pid.map { $0 != before } ?? false }, "\(daemon.serviceState)")
        try daemon.waitUntilAnswering()
        let answeredAt = Date()

        let shown = watch.lines.count
        let writtenAt = Date()
        try Data(count: 30 << 20).write(to: URL(fileURLWithPath: healthy + "/big"))
        let followed = waitUntil(seconds: 10) { watch.lines.dropFirst(shown).contains { $0.contains("30.0%") } }
        let lag = (watch.timedLines.dropFirst(shown).first { $0.line.contains("30.0%") }?.at ?? Date()).timeIntervalSince(writtenAt)
        print("measured: a bar of a healthy tmpfs, restarted daemon\(slowStart ? " (started slowly)" : ""), sshfs frozen: the write shown after \(Int(lag * 1000)) ms"
              + " (the new daemon answered \(Int(answeredAt.timeIntervalSince(restartedAt) * 1000)) ms after the restart)")
        let timeline = Self.timeline(watch, daemon: daemon, since: restartedAt)
        #expect(followed, "never shown: \(timeline)")
        #expect(lag < Self.allowedSeconds, "the write showed after \(lag) s: \(timeline)")
    }

    /// What happened from the restart on, for a failure's message: the bar's lines and the
    /// daemon's journal, with their times.
    static func timeline(_ watch: WatchProcess, daemon: UserServiceDaemon, since start: Date) -> String {
        let lines = watch.timedLines.filter { $0.at >= start }.map { String(format: "%.3f ", $0.at.timeIntervalSince1970) + $0.line.prefix(200) }
        let journal = (try? CommandRunner.run("/usr/bin/journalctl", ["--no-pager", "-o", "short-unix", "_UID=\(daemon.user.uid)",
                                                                     "--since=@\(Int(start.timeIntervalSince1970) - 1)"]).stdout) ?? ""
        return "bar:\n" + lines.joined(separator: "\n") + "\nstderr: \(watch.stderrText.value)\njournal:\n" + journal
    }
}
