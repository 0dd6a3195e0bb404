import Foundation
import Testing

/// A fast fill's desktop notification names who is filling the disk, end to end: the daemon
/// as users run it (socket-activated under the shipped, sandboxed unit), its helper
/// usedspace-writers.socket as shipped (outside the sandbox, which cannot read the user's
/// processes), a real writer on a real tmpfs, and the user's notification server (dunst).
/// The user's own writer is named with its file; another user's is not ("another user or
/// the system"); without the helper's units the notification comes as before, at once. A
/// file's name is escaped where the server reads the body as markup, and only there.
@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(NotificationDesktop.available, "needs dbus-daemon, dunst, dunstctl, dbus-send, Xvfb"),
       Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct WriterNotificationTests {
    /// The detector flags 50 MB/s within 30 s (FastFillServiceTests); the helper's answer
    /// takes about a second more, its deadline 5 s at most.
    static let detectorSeconds: Double = 30

    /// The fast-fill notification's body, once the daemon has shown it (nil: not shown).
    static func shownBody(_ daemon: UserServiceDaemon, _ session: NotificationDesktop, mount: String, seconds: Double) throws -> String? {
        guard waitUntil(seconds: seconds, { daemon.log.value.contains("showed a fast-fill notification") }) else { return nil }
        #expect(waitUntil(seconds: 5) { session.displayed == 1 })
        return try session.shown().first { $0.summary == "Disk filling fast on \(mount)" }?.body
    }

    /// From the daemon's decision to notify ("Disk filling fast on …" in its journal) to the
    /// notification server's reply, in seconds.
    static func heldSeconds(_ daemon: UserServiceDaemon, mount: String, since: Date) throws -> Double? {
        let entries = try daemon.manager.journal(since: since).filter { $0["USEDSPACE_PATH"] as? String == mount }
        func time(_ prefix: String) -> Double? {
            entries.first { ($0["MESSAGE"] as? String)?.hasPrefix(prefix) == true }
                .flatMap { ($0["__REALTIME_TIMESTAMP"] as? String).flatMap(Double.init) }.map { $0 / 1e6 }
        }
        guard let decided = time("Disk filling fast on \(mount)"), let shown = time("showed a fast-fill notification") else { return nil }
        return shown - decided
    }

    @Test func theUsersWriterIsNamedWithItsFile() throws {
        let scratch = try ScratchDirectory("notify-writer")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=10000000000,mode=1777")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "1s"])
        let session = try NotificationDesktop(session: daemon.manager)
        try daemon.waitUntilAnswering()
        // The helper's socket came with the daemon; a quiet disk asks it nothing.
        #expect(try daemon.manager.property("usedspace-writers.socket", "ActiveState") == "active")
        #expect(try daemon.manager.property("usedspace-writers.socket", "NAccepted") == "0", "asked without a fast fill")
        let sighting = HelperSighting(marker: "--name-writers", parent: daemon.manager.managerPID)
        defer { sighting.stop() }
        let since = Date()
        let user = daemon.manager.userCommand
        // A name that is markup to a server that reads the body as markup, as dunst does.
        let ours = try WriterProcess(mount + "/Tom & Jerry <1080p>.iso", bytesPerSecond: 50_000_000, prefix: [user.executable] + user.arguments)
        defer { ours.end() }
        let body = try #require(try Self.shownBody(daemon, session, mount: mount, seconds: Self.detectorSeconds + 10), "\(daemon.log.value)")
        #expect(try daemon.manager.property("usedspace-writers.socket", "NAccepted") == "1", "one question for one notification")
        // The helper as it ran: the user's, in the initial user namespace (what lets it read
        // the user's /proc), without privileges, under no_new_privs and a seccomp filter.
        let helper = try #require(sighting.seen.value, "the helper was not seen running")
        let uid = "\(daemon.user.uid)"
        #expect(helper.status["Uid"]?.split(separator: "\t").allSatisfy { $0 == uid } == true, "\(helper.status)")
        #expect(helper.uidMap.split(whereSeparator: { $0 == " " || $0 == "\n" }) == ["0", "0", "4294967295"], "\(helper.uidMap)")
        #expect(helper.status["NoNewPrivs"] == "1" && helper.status["Seccomp"] == "2", "\(helper.status)")
        #expect(helper.status["CapEff"] == "0000000000000000" && helper.status["CapBnd"] != nil, "\(helper.status)")
        let seconds = Date().timeIntervalSince(since)
        print("measured: the user's writer named in the notification \(String(format: "%.1f", seconds)) s after it started")
        #expect(seconds <= Self.detectorSeconds + 5, "\(seconds) s")
        #expect(body.hasPrefix("Space is going at "), "\(body)")
        // Escaped, as the server said "body-markup": shown as it is, not parsed.
        #expect(body.contains(" Writing: python3 (pid \(ours.pid)) writing \(mount)/Tom &amp; Jerry &lt;1080p&gt;.iso, "), "\(body)")
        #expect(daemon.log.value.contains("filling \(mount): python3 (pid \(ours.pid)) writing \(mount)/Tom & Jerry <1080p>.iso"), "\(daemon.log.value)")
        let held = try #require(try Self.heldSeconds(daemon, mount: mount, since: since), "\(daemon.log.value)")
        print("measured: the notification held \(String(format: "%.2f", held)) s for the helper's answer")
        #expect(held > 0 && held < 5.5, "\(held) s")
    }

    @Test func anotherUsersWriterIsNotNamed() throws {
        let scratch = try ScratchDirectory("notify-other")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=10000000000,mode=1777")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "1s"])
        let session = try NotificationDesktop(session: daemon.manager)
        try daemon.waitUntilAnswering()
        // Root writes, from this process: not the user's to see or name.
        let theirs = try SteadyWriter(path: mount + "/system.log", bytesPerSecond: 50_000_000)
        defer { theirs.stop() }
        let body = try #require(try Self.shownBody(daemon, session, mount: mount, seconds: Self.detectorSeconds + 10), "\(daemon.log.value)")
        #expect(body.hasSuffix(" Writing: another user or the system."), "\(body)")
        #expect(!body.contains("system.log") && !body.contains("pid"), "\(body)")
    }

    /// A server that does not read markup (no "body-markup") is given the body as it is: an
    /// escaped "&amp;" would be shown as such.
    @Test func aServerWithoutMarkupGetsTheWritersFileAsItIs() throws {
        let scratch = try ScratchDirectory("notify-plain")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=10000000000,mode=1777")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "1s"])
        let server = try PlainNotificationServer(session: daemon.manager, scratch: scratch)
        try daemon.waitUntilAnswering()
        let user = daemon.manager.userCommand
        let ours = try WriterProcess(mount + "/Tom & Jerry <1080p>.iso", bytesPerSecond: 50_000_000, prefix: [user.executable] + user.arguments)
        defer { ours.end() }
        #expect(waitUntil(seconds: Self.detectorSeconds + 10) { daemon.log.value.contains("showed a fast-fill notification") }, "\(daemon.log.value)")
        let body = try #require(server.shown.first { $0.summary == "Disk filling fast on \(mount)" }?.body, "\(server.shown)")
        #expect(body.contains(" Writing: python3 (pid \(ours.pid)) writing \(mount)/Tom & Jerry <1080p>.iso, "), "\(body)")
    }

    @Test func withoutTheHelperTheNotificationComesAsBeforeAtOnce() throws {
        let scratch = try ScratchDirectory("notify-nohelper")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=10000000000,mode=1777")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "1s"], writersHelper: false)
        let session = try NotificationDesktop(session: daemon.manager)
        try daemon.waitUntilAnswering()
        let since = Date()
        let user = daemon.manager.userCommand
        let ours = try WriterProcess(mount + "/download.iso", bytesPerSecond: 50_000_000, prefix: [user.executable] + user.arguments)
        defer { ours.end() }
        let body = try #require(try Self.shownBody(daemon, session, mount: mount, seconds: Self.detectorSeconds + 10), "\(daemon.log.value)")
        #expect(body.hasPrefix("Space is going at ") && !body.contains("Writing"), "\(body)")
        #expect(daemon.log.value.contains("the helper usedspace-writers.socket is not there"), "\(daemon.log.value)")
        let held = try #require(try Self.heldSeconds(daemon, mount: mount, since: since), "\(daemon.log.value)")
        print("measured: without the helper the notification held \(String(format: "%.3f", held)) s")
        #expect(held >= 0 && held < 1, "\(held) s")
    }

    /// Something else answers on the helper's socket (here the helper's unit runs echo with a
    /// writer whose file is not an absolute path): the answer is refused whole, said in the
    /// log, and the notification comes without a writer.
    @Test func aHostileAnswerIsRefusedAndTheNotificationComesWithoutIt() throws {
        let scratch = try ScratchDirectory("notify-hostile")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=10000000000,mode=1777")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "1s"], socket: false)
        let dropIn = daemon.manager.unitDirectory + "/usedspace-writers@.service.d"
        try FileManager.default.createDirectory(atPath: dropIn, withIntermediateDirectories: true)
        try """
            [Service]
            ExecStart=
            ExecStart=/bin/echo '{"writers":[{"pid":1,"command":"evil","bytes_per_second":1,"file":"../../etc/passwd"}]}'

            """.write(toFile: dropIn + "/hostile.conf", atomically: true, encoding: .utf8)
        try daemon.manager.giveToUser(dropIn)
        #expect(try daemon.manager.systemctl("daemon-reload").status == 0)
        try daemon.startSocket()
        let session = try NotificationDesktop(session: daemon.manager)
        try daemon.waitUntilAnswering()
        let theirs = try SteadyWriter(path: mount + "/system.log", bytesPerSecond: 50_000_000)
        defer { theirs.stop() }
        let body = try #require(try Self.shownBody(daemon, session, mount: mount, seconds: Self.detectorSeconds + 10), "\(daemon.log.value)")
        #expect(body.hasPrefix("Space is going at ") && !body.contains("Writing") && !body.contains("evil"), "\(body)")
        #expect(daemon.log.value.contains("the helper's answer was refused"), "\(daemon.log.value)")
        #expect(try daemon.manager.property("usedspace-writers.socket", "NAccepted") == "1", "the hostile helper was asked")
    }
}
