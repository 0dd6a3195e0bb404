import Foundation
import Testing

/// Clients that send garbage, too much, nothing, or never read. The daemon answers each with
/// a reason or drops it, never dies, keeps its memory bounded, and a well-behaved client is
/// answered within 50 ms throughout.
@Suite(Prerequisite.root, Prerequisite.enabled(UserServiceDaemon.available, "needs systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct HostileClientTests {
    static func daemon(_ extra: [String] = []) throws -> UserServiceDaemon {
        let daemon = try UserServiceDaemon(arguments: ["--interval", "100ms"] + extra)
        try daemon.waitUntilAnswering()
        return daemon
    }

    /// The time a fresh, well-behaved client waits for `status`.
    static func answerTime(_ daemon: UserServiceDaemon) throws -> Double {
        let started = Date()
        let frame = try daemon.client().request("status json", timeout: 5)
        #expect(frame.header == "ok 1")
        return Date().timeIntervalSince(started)
    }

    @Test func garbageNULsAndInvalidUTF8GetAReasonAndTheConnectionGoesOn() throws {
        let daemon = try Self.daemon()
        let client = try daemon.client()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var junk = (0..<Int.random(in: 1...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            junk.removeAll { $0 == 10 }
            try client.sendBytes(junk + [10])
            let answer = try #require(try client.readFrame(timeout: 5))
            #expect(answer.header.hasPrefix("error "), "\(answer.header)")
            #expect(!answer.header.contains("\u{0}"))
        }
        try client.sendBytes(Array("sta".utf8) + [0] + Array("tus\n".utf8))
        #expect(try client.readFrame(timeout: 5)?.header == "error bad-request the request contains a NUL byte")
        try client.sendBytes(Array("status ".utf8) + [0xC3, 0x28] + [10])
        #expect(try client.readFrame(timeout: 5)?.header == "error bad-request the request is not valid UTF-8")
        #expect(try client.request("ping").lines == ["pong"])
        #expect(try Self.answerTime(daemon) < 0.05)
    }

    @Test func aTenMegabyteLineIsRefusedAndClosedWithoutGrowingMemory() throws {
        let daemon = try Self.daemon()
        let before = try #require(daemon.residentKilobytes)
        let client = try daemon.client()
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        var refused = false
        for _ in 0..<10 {
            do { try client.sendBytes(chunk) } catch { refused = true; break }
        }
        let answer = try? client.readFrame(timeout: 5)
        #expect(answer?.header.hasPrefix("error too-long") == true || refused)
        #expect(client.isClosedByPeer(timeout: 5))
        let after = try #require(daemon.residentKilobytes)
        print("measured: 10 MB line: RSS \(before) -> \(after) KiB")
        #expect(after - before < 2048, "RSS grew by \(after - before) KiB")
        #expect(try Self.answerTime(daemon) < 0.05)
    }

    @Test func aClientThatNeverWritesIsClosedAfterTheIdleTimeout() throws {
        let daemon = try Self.daemon(["--idle-timeout", "1s"])
        let silent = try daemon.client()
        let started = Date()
        let goodbye = try silent.readFrame(timeout: 5)
        #expect(goodbye?.header.hasPrefix("error idle") == true)
        #expect(silent.isClosedByPeer(timeout: 3))
        #expect(Date().timeIntervalSince(started) < 3)
        // A subscriber is not idle.
        let subscriber = try daemon.client()
        #expect(try subscriber.request("subscribe").header == "ok 1")
        #expect(!subscriber.isClosedByPeer(timeout: 2.5))
    }

    @Test(Prerequisite.root) func aSubscriberThatNeverReadsIsDroppedAndMemoryStaysBounded() throws {
        let scratch = try ScratchDirectory("never-reads")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=64m")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "100ms", "--threshold", "0"])
        try daemon.waitUntilAnswering()
        let before = try #require(daemon.residentKilobytes)
        // Many subscribers in the bulky format, none of which ever reads.
        var sleepers: [ProtocolClient] = []
        for _ in 0..<20 {
            let client = try daemon.client()
            try client.send("subscribe format=waybar details\n")
            sleepers.append(client)
        }
        // Publish continuously for a while (threshold 0: every sample is news).
        let churn = FileChurn(in: mount, pauseMicroseconds: 20_000)
        defer { churn.stop() }
        var worst = 0.0
        let deadline = Date().addingTimeInterval(8)
        while Date() < deadline {
            worst = max(worst, try Self.answerTime(daemon))
            usleep(100_000)
        }
        let after = try #require(daemon.residentKilobytes)
        print("measured: 20 subscribers that never read, 8 s of publishing: worst answer \(Int(worst * 1000)) ms, RSS \(before) -> \(after) KiB")
        #expect(worst < 0.05, "a well-behaved client waited \(worst) s")
        // 20 × (256 KiB backlog cap) would be 5 MiB; the kernel's socket buffers come first.
        #expect(after - before < 8192, "RSS grew by \(after - before) KiB")
        #expect(daemon.isRunning)
    }

    @Test func aClientThatDisconnectsMidAnswerDoesNotKillTheDaemon() throws {
        let daemon = try Self.daemon()
        let pid = try #require(daemon.pid)
        for _ in 0..<200 {
            let client = try daemon.client()
            try client.send(String(repeating: "status details\nhelp\n", count: 50))
            // Close at once: the daemon writes into a socket nobody reads any more (EPIPE).
        }
        // Until it has written into and closed all 200 (or died on it), and the same process
        // runs on: a restarted one would hide a crash.
        #expect(waitUntil(seconds: 10) { !ProcessTable.isRunning(pid) || ProcessTable.acceptedConnections(of: pid) == 0 },
                "the daemon still holds \(ProcessTable.acceptedConnections(of: pid).map(String.init) ?? "?") of the 200 connections")
        #expect(daemon.isRunning && daemon.pid == pid, "\(daemon.serviceState)")
        #expect(try Self.answerTime(daemon) < 0.05)
    }

    @Test func twoThousandConnectionsAreBoundedByTheLimitAndTheExcessIsToldWhy() throws {
        // Room for 2,000 sockets in the crowd's process (it inherits this limit): raise the
        // soft limit if need be, never lower it (nor the hard limit) under the others' feet.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 8192 {
            limit.rlim_cur = min(8192, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        try #require(limit.rlim_cur >= 4096, "needs an open-file limit of at least 4096 (ulimit -Hn)")
        let daemon = try Self.daemon(["--max-clients", "1000"])
        let before = try #require(daemon.residentKilobytes)
        let crowd = try ClientCrowd(socket: daemon.socketPath, connections: 2000, as: (daemon.user.uid, daemon.user.gid))
        print("measured: 2000 connections, limit 1000: refused \(crowd.refused), accepted \(crowd.accepted)")
        #expect(crowd.refused >= 990 && crowd.refused <= 1000, "refused \(crowd.refused)")
        #expect(crowd.accepted >= 1000)
        // Still answering, quickly, once some of the crowd leaves (all but 500): once the
        // daemon has closed its side of theirs.
        let pid = try #require(daemon.pid)
        try #require(crowd.leaveFiveHundred(), "the crowd's process ended early")
        #expect(waitUntil(seconds: 10) { (ProcessTable.acceptedConnections(of: pid) ?? .max) <= 500 },
                "the daemon holds \(ProcessTable.acceptedConnections(of: pid).map(String.init) ?? "?") connections when 500 are left")
        #expect(try Self.answerTime(daemon) < 0.05)
        let after = try #require(daemon.residentKilobytes)
        print("measured: 2000 connections: RSS \(before) -> \(after) KiB")
        #expect(after - before < 16_384, "RSS grew by \(after - before) KiB")
        #expect(daemon.log.value.components(separatedBy: "at the connection limit").count <= 3, "refusals are logged at most once per 10 s")
    }

    @Test(Prerequisite.root, Prerequisite.enabled(Prerequisite.hasCommand("setpriv"), "needs setpriv"))
    func anotherUserIsRefusedEvenIfTheSocketWereOpen() throws {
        let daemon = try Self.daemon()
        // The socket is 0600: another user cannot even connect.
        let blocked = try CommandRunner.run("/usr/bin/setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
            "import socket; s = socket.socket(socket.AF_UNIX); s.connect('\(daemon.socketPath)')",
        ])
        #expect(blocked.status != 0 && blocked.stderr.contains("PermissionError"))
        // Were it opened up (a mistaken chmod), the peer's uid is still checked.
        chmod(daemon.manager.runtimeDirectory, 0o755)
        chmod(daemon.socketPath, 0o666)
        let refused = try CommandRunner.run("/usr/bin/setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
            "import socket; s = socket.socket(socket.AF_UNIX); s.connect('\(daemon.socketPath)'); print(s.recv(4096).decode())",
        ])
        #expect(refused.stdout.hasPrefix("error forbidden this daemon serves only uid \(daemon.user.uid)"), "\(refused.stdout) \(refused.stderr)")
        #expect(waitUntil(seconds: 3) { daemon.log.value.contains("refused a connection from uid 65534 (pid ") })
        #expect(try Self.answerTime(daemon) < 0.05)
    }
}
