import Foundation
import Testing

/// The client as a user meets it: help, errors, exit statuses. Every error is one line on
/// stderr beginning with "usedspace: ", and never a trace.
@Suite struct CommandLineTests {
    static func expectOneLineError(_ result: CommandResult, status: Int32, mentioning: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "exit status", sourceLocation: sourceLocation)
        #expect(result.stderrLines.count == 1, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("usedspace: "), sourceLocation: sourceLocation)
        #expect(result.stderr.contains(mentioning), "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Backtrace"), sourceLocation: sourceLocation)
    }

    static func usedspace(_ arguments: String..., environment: [String: String]? = nil) throws -> CommandResult {
        try CommandRunner.run(CommandRunner.usedspace, arguments, environment: environment)
    }

    @Test func statusPrintsTheBarAndDetails() throws {
        let result = try Self.usedspace("status", "--details")
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 6 && lines[5].isEmpty)
        #expect(lines[0].wholeMatch(of: /\[[█░]{20}\] [ \d]{3}\.\d%/) != nil, "\(lines[0])")
        #expect(lines[1].hasPrefix("Used:\t") && lines[2].hasPrefix("Free:\t") && lines[3].hasPrefix("Total:\t"))
        #expect(lines[4].wholeMatch(of: /Inodes:\t([\d,]+ used, [\d,]+ free|n\/a)/) != nil, "\(lines[4])")
        #expect(result.stderr.isEmpty)
    }

    @Test func aMissingPathIsOneLineAndStatusOne() throws {
        let result = try Self.usedspace("status", "--path", "/no/such/place")
        Self.expectOneLineError(result, status: 1, mentioning: "/no/such/place: no such file or directory")
        #expect(result.stdout.isEmpty)
    }

    @Test func aFailedSampleInJSONStillPrintsTheObject() throws {
        let result = try Self.usedspace("status", "--path", "/no/such/place", "--format", "json")
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["state"] as? String == "failed")
        #expect((object["error"] as? String)?.contains("no such file") == true)
        #expect(object["total_bytes"] is NSNull)
    }

    @Test func aPseudoFilesystemWithoutBlocksFails() throws {
        Self.expectOneLineError(try Self.usedspace("status", "--path", "/proc"), status: 1, mentioning: "reports 0 blocks")
    }

    @Test(Prerequisite.root, Prerequisite.enabled(Prerequisite.hasCommand("setpriv"), "needs setpriv (util-linux)"))
    func aPathAnotherUserCannotReach() throws {
        let scratch = try ScratchDirectory("private")
        let secret = scratch.subpath("secret")
        try FileManager.default.createDirectory(atPath: secret + "/inside", withIntermediateDirectories: true)
        chmod(secret, 0o700)
        let result = try CommandRunner.run("/usr/bin/setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", CommandRunner.usedspace, "status", "--path", secret + "/inside",
        ], environment: ["HOME": "/nonexistent", "PATH": "/usr/bin:/bin"])
        Self.expectOneLineError(result, status: 1, mentioning: "permission denied")
    }

    @Test(arguments: [
        (["status", "--bogus"], "unknown option '--bogus'"),
        (["status", "--format", "xml"], "invalid value 'xml' for '--format'"),
        (["status", "--format"], "needs a value"),
        (["status", "--path"], "needs a value"),
        (["status", "--path", ""], "the path is empty"),
        (["status", "--details=yes"], "takes no value"),
        (["status", "extra"], "unexpected argument 'extra'"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["--frobnicate"], "unknown option '--frobnicate'"),
        ([], "no command given"),
        (["help", "nothing"], "unknown command 'nothing'"),
    ])
    func badCommandLinesExitTwo(_ arguments: [String], _ message: String) throws {
        let result = try CommandRunner.run(CommandRunner.usedspace, arguments)
        Self.expectOneLineError(result, status: 2, mentioning: message)
        #expect(result.stdout.isEmpty)
    }

    @Test func hostileArgumentsAreRejectedCleanly() throws {
        let huge = String(repeating: "x", count: 100_000)
        Self.expectOneLineError(try Self.usedspace("status", "--path", "/" + huge), status: 1, mentioning: "usedspace: ")
        Self.expectOneLineError(try Self.usedspace("status", "--format", "\u{1}\u{7f}é"), status: 2, mentioning: "invalid value")
        Self.expectOneLineError(try Self.usedspace("status", "--" + huge), status: 2, mentioning: "unknown option")
    }

    @Test func helpDescribesEveryOption() throws {
        let top = try Self.usedspace("--help")
        #expect(top.status == 0)
        #expect(top.stdout.contains("status"))
        let status = try Self.usedspace("status", "--help")
        #expect(status.status == 0)
        for option in ["--path", "--details", "--format", "--help"] { #expect(status.stdout.contains(option)) }
        #expect(try Self.usedspace("help", "status").stdout == status.stdout)
    }

    @Test func versionPrintsOneLine() throws {
        let result = try Self.usedspace("--version")
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("usedspace ") && result.stdout.split(separator: "\n").count == 1)
    }

    @Test func withoutHomeItUsesThePasswordDatabase() throws {
        let result = try CommandRunner.run(CommandRunner.usedspace, ["status", "--format", "json"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let home = String(cString: getpwuid(getuid()).pointee.pw_dir)
        #expect(object["path"] as? String == URL(fileURLWithPath: home).resolvingSymlinksInPath().path)
    }

    /// A uid /etc/passwd does not know, with HOME unset: a clear error, not a crash (the
    /// static client must not load NSS modules).
    @Test(Prerequisite.root, Prerequisite.enabled(Prerequisite.hasCommand("setpriv"), "needs setpriv (util-linux)"))
    func anUnknownUserWithoutHomeIsAClearError() throws {
        let result = try CommandRunner.run("/usr/bin/setpriv", ["--reuid=54321", "--regid=54321", "--clear-groups",
                                                                CommandRunner.usedspace, "status"], environment: ["PATH": "/usr/bin:/bin"])
        Self.expectOneLineError(result, status: 1, mentioning: "HOME is not set")
    }

    @Test func aHomeThatDoesNotExistIsAClearError() throws {
        Self.expectOneLineError(try Self.usedspace("status", environment: ["HOME": "/no/such/home"]), status: 1, mentioning: "/no/such/home")
    }
}

/// A one-shot `status` on a filesystem that hangs returns, with a timeout error, instead of
/// hanging like df: the sample runs in a child process that is left behind.
@Suite struct HungStatusTests {
    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func statusOnAHungMountTimesOut() throws {
        let hanging = try HangingMount()
        let directory = try ScratchDirectory("status-hang")
        let environment = ["USEDSPACE_SOCKET": directory.subpath("none.sock"), "HOME": userHome, "PATH": "/usr/bin:/bin"]
        let normal = try CommandRunner.run(CommandRunner.usedspace, ["status", "--path", hanging.mountPoint, "--format", "json"], environment: environment)
        #expect(normal.status == 0)
        #expect(normal.stdout.contains("\"used_bytes\":\(600 * 4096)"))

        hanging.hang()
        let started = Date()
        let hung = try CommandRunner.run(CommandRunner.usedspace, ["status", "--path", hanging.mountPoint, "--timeout", "1s"],
                                         environment: environment, timeout: 20)
        let elapsed = Date().timeIntervalSince(started)
        #expect(hung.status == 1)
        #expect(hung.stderr.contains("did not answer within 1 s"), "\(hung.stderr)")
        #expect(elapsed < 3, "took \(elapsed) s")
    }
}
