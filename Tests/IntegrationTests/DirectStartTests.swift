import Foundation
import Testing

/// usedspaced started by hand, not by systemd: the socket it binds itself (the fallback when
/// none is passed), its command line, `usedspaced --reload` as ExecReload= runs it, its log
/// on stderr. What the daemon serves is DaemonProtocolTests', on the daemon as users run it.
@Suite struct DirectStartTests {
    static func daemon(_ arguments: [String] = ["--interval", "200ms"], environment: [String: String] = [:]) throws -> DaemonProcess {
        let daemon = try DaemonProcess(arguments: arguments, environment: environment)
        try daemon.waitUntilAnswering()
        return daemon
    }

    @Test func theSocketIsPrivateAndRemovedOnStop() throws {
        let daemon = try Self.daemon()
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test func refusesToStartWhenAnotherInstanceAnswers() throws {
        let first = try Self.daemon()
        let second = try DaemonProcess(arguments: ["--interval", "200ms"], socketPath: first.socketPath, stateDirectory: first.stateDirectory)
        try #require(waitUntil(seconds: 10) { !second.process.isRunning }, "still running; stderr: \(second.stderrText.value)")
        #expect(second.process.terminationStatus == 1)
        #expect(second.stderrText.value.contains("another usedspaced is already answering"))
        #expect(try ProtocolClient(path: first.socketPath).request("ping").lines == ["pong"])
    }

    @Test func replacesAStaleSocketFile() throws {
        let directory = try ScratchDirectory("stale")
        let path = directory.subpath("usedspace.sock")
        // A socket file nobody listens on, as a crashed daemon leaves behind.
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(listener)
        #expect(FileManager.default.fileExists(atPath: path))
        let daemon = try DaemonProcess(arguments: ["--interval", "200ms"], socketPath: path)
        try daemon.waitUntilAnswering()
        #expect(daemon.stderrText.value.contains("removed a stale socket"))
    }

    /// A stopped daemon still has its socket accept connections (into the backlog): it does
    /// not answer, so a new instance takes the path over instead of refusing to start.
    @Test func replacesTheSocketOfAnInstanceThatNoLongerAnswers() throws {
        let first = try Self.daemon()
        first.signal(SIGSTOP)
        defer { first.signal(SIGCONT) }
        let second = try DaemonProcess(arguments: ["--interval", "200ms"], socketPath: first.socketPath)
        try second.waitUntilAnswering()
        #expect(second.stderrText.value.contains("does not answer"))
        #expect(!first.stderrText.value.contains("error"))
    }

    /// A socket at the path that answers with something else is not ours to replace, whether
    /// that program greets and hangs up at once (before the daemon's ping can even be sent)
    /// or answers the ping.
    @Test(arguments: ["greets and hangs up", "answers the request"])
    func refusesToReplaceTheSocketOfAnotherProgram(_ behaviour: String) throws {
        let directory = try ScratchDirectory("other")
        let path = directory.subpath("usedspace.sock")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0 && listen(listener, 8) == 0)
        let answerer = Thread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            if behaviour == "answers the request" {
                var byte: UInt8 = 0
                while read(connection, &byte, 1) == 1 && byte != UInt8(ascii: "\n") {}
            }
            let reply = Array("HTTP/1.0 400 Bad Request\r\n\r\n".utf8)
            _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            close(connection)
        }
        answerer.start()
        let daemon = try DaemonProcess(arguments: [], socketPath: path)
        try #require(waitUntil(seconds: 10) { !daemon.process.isRunning }, "still running; stderr: \(daemon.stderrText.value)")
        #expect(daemon.process.terminationStatus == 1)
        #expect(daemon.stderrText.value.contains("another program is answering on \(path)"), "stderr: \(daemon.stderrText.value)")
        var status = stat()
        #expect(stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK)
    }

    @Test func refusesToReplaceAFileThatIsNotASocket() throws {
        let directory = try ScratchDirectory("notsocket")
        let path = directory.subpath("important")
        try "keep me".write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: [], socketPath: path)
        try #require(waitUntil(seconds: 10) { !daemon.process.isRunning }, "still running; stderr: \(daemon.stderrText.value)")
        #expect(daemon.process.terminationStatus == 1)
        #expect(daemon.stderrText.value.contains("exists and is not a socket"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }

    @Test(arguments: [
        (["--interval", "0"], "invalid value '0' for '--interval'"),
        (["--interval", "soon"], "not a duration"),
        (["--threshold", "2"], "out of range"),
        (["--path", "relative"], "the path must be absolute"),
        (["--bogus"], "unknown option '--bogus' for 'usedspaced'"),
        (["extra"], "unexpected argument 'extra'"),
    ])
    func badOptionsExitTwoWithOneLine(_ arguments: [String], _ message: String) throws {
        let result = try CommandRunner.run(CommandRunner.usedspaced, arguments)
        #expect(result.status == 2)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("usedspaced: ") && result.stderr.contains(message), "\(result.stderr)")
    }

    /// The log reads well by itself: every message carries its reason (path, call, errno),
    /// not only a structured field, and a publish says what it published.
    @Test func everyLogMessageSaysWhy() throws {
        let directory = try ScratchDirectory("log-reasons")
        let missing = directory.subpath("gone")
        let daemon = try DaemonProcess(arguments: ["--path", directory.path, "--path", missing, "--textfile-dir", "/proc/usedspace-test",
                                                   "--interval", "200ms"])
        try daemon.waitUntilAnswering()
        let log = { daemon.stderrText.value }
        #expect(waitUntil(seconds: 5) {
            log().contains("sampling failed: \(missing): no such file or directory (seq ")
                && log().contains("cannot save the Prometheus textfile /proc/usedspace-test/usedspace.prom: mkdir: ")
                && log().contains("published ") && log().contains("% used, ")
        }, "\(log())")
        // `usedspaced --reload` (the unit's ExecReload=): the outcome, synchronously.
        let config = daemon.directory + "/config/usedspace/config"
        try FileManager.default.createDirectory(atPath: daemon.directory + "/config/usedspace", withIntermediateDirectories: true)
        try "[daemon]\npath = \(directory.path)\ninterval = soon\n".write(toFile: config, atomically: true, encoding: .utf8)
        let refused = try CommandRunner.run(CommandRunner.usedspaced, ["--reload", "--socket", daemon.socketPath])
        #expect(refused.status == 1)
        #expect(refused.stderr == "usedspaced: configuration refused, the running one is kept: \(config):3: interval: 'soon' is not a duration such as 5s, 500ms or 2min\n",
                "\(refused.stderr)")
        try "[daemon]\npath = \(directory.path)\ninterval = 1s\n".write(toFile: config, atomically: true, encoding: .utf8)
        let applied = try CommandRunner.run(CommandRunner.usedspaced, ["--reload", "--socket", daemon.socketPath])
        #expect(applied.status == 0)
        // (The command line's --path and --interval still win over the file.)
        #expect(applied.stdout == "reloaded \(config): watching \(directory.path), \(missing) every 200 ms\n", "\(applied.stdout) \(applied.stderr)")
        #expect(log().contains("reloaded \(config)"))
    }

    @Test func helpAndVersion() throws {
        let help = try CommandRunner.run(CommandRunner.usedspaced, ["--help"])
        #expect(help.status == 0)
        for option in ["--path", "--interval", "--threshold", "--timeout", "--socket", "--state-dir", "--config", "--max-clients"] {
            #expect(help.stdout.contains(option), "\(option)")
        }
        #expect(try CommandRunner.run(CommandRunner.usedspaced, ["--version"]).stdout.hasPrefix("usedspaced "))
    }
}
