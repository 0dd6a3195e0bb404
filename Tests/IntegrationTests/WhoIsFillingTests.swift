import Foundation
import Testing

/// Who is filling a disk, named where the user looks (status --details, JSON, a watch's
/// tooltip), by the client in the user's session: the daemon as users run it flags the fast
/// fill; the user's own writer is named with its file, another user's never (the space is
/// "another user or the system"); nothing of /proc is read while no fast fill is seen.
@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"),
       Prerequisite.enabled(Prerequisite.hasCommand("strace"), "needs strace"))
struct WhoIsFillingTests {
    static func fastFill(_ daemon: UserServiceDaemon) -> [String: Any]? {
        (try? daemon.client().request("status format=json").json)?["fast_fill"] as? [String: Any]
    }

    /// How many /proc/PID/io files a `usedspace` run opened, by strace.
    static func processFilesRead(_ daemon: UserServiceDaemon, _ arguments: [String], scratch: ScratchDirectory) throws -> Int {
        let trace = scratch.subpath("trace-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: trace, contents: nil)
        try daemon.manager.giveToUser(trace)
        let command = daemon.clientCommand(arguments, environment: [:])
        _ = try CommandRunner.run("/usr/bin/strace", ["-f", "-e", "trace=open,openat,openat2", "-o", trace, command.executable] + command.arguments,
                                  environment: command.environment, timeout: 30)
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        return text.split(separator: "\n").filter { $0.contains("/proc/") && $0.contains("/io\"") }.count
    }

    @Test func theUsersWriterIsNamedAndAnotherUsersIsNot() throws {
        let scratch = try ScratchDirectory("who-fills")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=10000000000,mode=1777")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "1s"])
        try daemon.waitUntilAnswering()
        #expect(try Self.processFilesRead(daemon, ["status", "--path", mount, "--details"], scratch: scratch) == 0,
                "no fast fill: /proc is not read")

        let session = daemon.manager.userCommand
        let ours = try WriterProcess(mount + "/download.iso", bytesPerSecond: 50_000_000, prefix: [session.executable] + session.arguments)
        defer { ours.end() }
        #expect(waitUntil(seconds: 60) { Self.fastFill(daemon) != nil }, "not flagged: \(daemon.log.text)")

        var details = ""
        #expect(waitUntil(seconds: 10) {
            details = (try? daemon.usedspace(["status", "--path", mount, "--details"]).stdout) ?? ""
            return details.contains("Writing:\tpython3 (pid \(ours.pid)) writing \(mount)/download.iso, ")
        }, "\(details)")
        let json = try daemon.usedspace(["status", "--path", mount, "--format", "json"])
        let fill = try #require(WatchProcess.json(json.stdout)?["fast_fill"] as? [String: Any], "\(json.stdout)")
        let writer = try #require((fill["writers"] as? [[String: Any]])?.first, "\(fill)")
        #expect((writer["pid"] as? NSNumber)?.int32Value == ours.pid && writer["file"] as? String == mount + "/download.iso")
        #expect(((writer["bytes_per_second"] as? NSNumber)?.intValue).map { (25_000_000...100_000_000).contains($0) } == true, "\(writer)")
        // A watch names it in its details (waybar's tooltip).
        let watch = try daemon.watch(["--path", mount, "--format", "waybar"])
        #expect((try? watch.waitForLine(timeout: 15) { $0.contains("Writing: python3 (pid \(ours.pid))") }) != nil, "\(watch.lines)")
        #expect(try Self.processFilesRead(daemon, ["status", "--path", mount, "--details"], scratch: scratch) > 0,
                "during a fast fill the user's processes are read")

        // Ours stops; root goes on filling: not the user's to see or name.
        ours.end()
        let theirs = try SteadyWriter(path: mount + "/system.log", bytesPerSecond: 50_000_000)
        defer { theirs.stop() }
        #expect(waitUntil(seconds: 15) {
            details = (try? daemon.usedspace(["status", "--path", mount, "--details"]).stdout) ?? ""
            return details.contains("Writing:\tanother user or the system")
        }, "\(details)")
        #expect(!details.contains("system.log") && !details.contains("pid"), "\(details)")
    }
}
