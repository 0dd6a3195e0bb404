import Foundation
import Testing

/// Clients that come and go as a user's day makes them: a bar restarted, a `watch` killed, a
/// script that half-closes and then vanishes. Every one of them must cost the daemon nothing
/// once it is gone: no CPU, no descriptor, no thread.
@Suite(Prerequisite.root, Prerequisite.enabled(UserServiceDaemon.available, "needs systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct ClientChurnTests {
    /// CPU time (user + system) of a process in clock ticks (normally 10 ms), from /proc.
    static func cpuTicks(_ pid: pid_t) -> Int? {
        guard let stat = readProcFile("/proc/\(pid)/stat"), let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(end, offsetBy: 2)...].split(separator: " ")
        // Fields 14 and 15 of proc(5), counted from the state field (3).
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    static func openDescriptors(_ pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// Waits until the daemon holds no client's connection: it has seen every hang-up and
    /// closed its side. Requires it, for what is counted next counts on it.
    static func requireNoConnectionHeld(_ daemon: UserServiceDaemon, _ what: String,
                                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        let pid = try #require(daemon.pid, sourceLocation: sourceLocation)
        try #require(waitUntil(seconds: 10) { ProcessTable.acceptedConnections(of: pid) == 0 },
                     "the daemon still holds \(what): \(ProcessTable.acceptedConnections(of: pid).map(String.init) ?? "gone") connections",
                     sourceLocation: sourceLocation)
    }

    /// The daemon's CPU ticks over `seconds` of doing nothing (a spinning loop takes ~100 per
    /// second; an idle daemon sampling a quiet filesystem takes 0 or 1).
    static func idleTicks(_ daemon: UserServiceDaemon, seconds: Double = 2) throws -> Int {
        let pid = daemon.pid!
        let before = try #require(cpuTicks(pid))
        usleep(UInt32(seconds * 1_000_000)) // the observation window
        let after = try #require(cpuTicks(pid))
        return after - before
    }

    static func quietDaemon() throws -> (UserServiceDaemon, ScratchDirectory) {
        let scratch = try ScratchDirectory("churn")
        let daemon = try UserServiceDaemon(arguments: ["--path", scratch.path])
        try daemon.waitUntilAnswering()
        // The ping's connection is closed by the daemon when it sees the hang-up: wait for
        // it, before descriptors are counted.
        try requireNoConnectionHeld(daemon, "the ping's connection")
        return (daemon, scratch)
    }

    @Test func aSubscriberThatVanishesCostsTheDaemonNothing() throws {
        let (daemon, _) = try Self.quietDaemon()
        let descriptorsBefore = Self.openDescriptors(daemon.pid!)
        do {
            let client = try daemon.client()
            #expect(try client.request("subscribe json").header == "ok 1")
        } // closed here, as a killed bar's socket is
        try Self.requireNoConnectionHeld(daemon, "the vanished subscriber's connection")
        let ticks = try Self.idleTicks(daemon)
        print("measured: daemon CPU over 2 s after a subscriber vanished: \(ticks) ticks")
        #expect(ticks < 20, "the daemon spun after a subscriber went away (\(ticks) ticks in 2 s)")
        #expect(Self.openDescriptors(daemon.pid!) <= descriptorsBefore)
    }

    @Test func aSubscriberThatHalfClosesThenVanishesCostsNothing() throws {
        let (daemon, _) = try Self.quietDaemon()
        let descriptorsBefore = Self.openDescriptors(daemon.pid!)
        do {
            let client = try daemon.client()
            try client.send("subscribe json\n")
            client.shutdownWriting()
            #expect(try client.readFrame(timeout: 5)?.header == "ok 1")
            // Still subscribed after the half-close: it reads, it just sends nothing more.
            #expect(ProcessTable.acceptedConnections(of: daemon.pid!) == 1, "the half-closed subscriber was dropped")
            #expect(try Self.idleTicks(daemon, seconds: 1) < 10)
        }
        try Self.requireNoConnectionHeld(daemon, "the half-closed subscriber's connection")
        let ticks = try Self.idleTicks(daemon)
        print("measured: daemon CPU over 2 s after a half-closed subscriber vanished: \(ticks) ticks")
        #expect(ticks < 20, "the daemon spun after a half-closed subscriber went away (\(ticks) ticks in 2 s)")
        #expect(Self.openDescriptors(daemon.pid!) <= descriptorsBefore)
    }

    @Test func aKilledWatchCostsTheDaemonNothing() throws {
        let (daemon, scratch) = try Self.quietDaemon()
        for format in ["i3bar", "waybar", "json"] {
            let watch = try daemon.watch(["--format", format, "--path", scratch.path])
            _ = try watch.waitForLine { $0.contains("%") || $0.contains("used_rate") }
            kill(watch.process.processIdentifier, SIGKILL)
            watch.process.waitUntilExit()
        }
        try Self.requireNoConnectionHeld(daemon, "a killed watch's connection")
        let ticks = try Self.idleTicks(daemon)
        print("measured: daemon CPU over 2 s after three killed watches: \(ticks) ticks")
        #expect(ticks < 20, "the daemon spun after a watch was killed (\(ticks) ticks in 2 s)")
    }
}
