import Foundation
import Testing

/// An answer wherever df answers: in a bare chroot (a build root, a rescue shell) the mount
/// table shows no mount for `/`, or cannot be read, and statvfs answers all the same. The
/// client, run there as shipped, shows df's numbers with the mount point and type unknown
/// (`-` in text, null in JSON), measured in a child process as a mount that may hang.
@Suite(Prerequisite.root, Prerequisite.enabled(BareChroot.available, "needs root, unshare, chroot and ldd"))
struct BareChrootTests {
    static func chroot() throws -> BareChroot {
        try BareChroot(programs: [CommandRunner.usedspace, "/usr/bin/df"])
    }

    /// df run in the same chroot, the same way: what usedspace must say.
    static func diskFree(_ chroot: BareChroot, proc: Bool) throws -> DiskFree {
        let result = try chroot.run("df", ["-B1", "--output=" + DiskFree.outputColumns, "/"], proc: proc)
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.split(separator: "\n", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        return try DiskFree.parse(line, of: "/")
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    @Test func statusAnswersAsDfDoes() throws { try Self.checkStatus(procMounted: true) }

    /// No /proc: no mount table to read. (The Swift runtime of a dynamic build needs /proc.)
    @Test(Prerequisite.enabled(BareChroot.isStatic(CommandRunner.usedspace), "needs the shipped static client: USEDSPACE_BIN_DIR=$(make -s bin-dir)"))
    func statusAnswersAsDfDoesWithoutAMountTable() throws { try Self.checkStatus(procMounted: false) }

    @Test func listShowsTheRootAsDfDoes() throws { try Self.checkList(procMounted: true) }

    @Test(Prerequisite.enabled(BareChroot.isStatic(CommandRunner.usedspace), "needs the shipped static client: USEDSPACE_BIN_DIR=$(make -s bin-dir)"))
    func listShowsTheRootAsDfDoesWithoutAMountTable() throws { try Self.checkList(procMounted: false) }

    static func checkStatus(procMounted: Bool) throws {
        let chroot = try Self.chroot()
        let df = try Self.diskFree(chroot, proc: procMounted)
        // The premise: df does not know the mount either.
        #expect(df.type == "-", "\(df)")

        let json = try chroot.run("usedspace", ["status", "--path", "/", "--format", "json"], proc: procMounted)
        #expect(json.status == 0, "\(json.stdout) \(json.stderr)")
        let object = try Self.object(json.stdout.trimmingCharacters(in: .newlines))
        #expect(object["mountpoint"] is NSNull && object["fstype"] is NSNull, "\(json.stdout)")
        #expect(object["state"] as? String == "fresh", "\(json.stdout)")
        #expect((object["total_bytes"] as? NSNumber)?.uint64Value == df.sizeBytes, "\(json.stdout) df: \(df)")
        #expect((object["used_bytes"] as? NSNumber)?.uint64Value == df.usedBytes, "\(json.stdout) df: \(df)")
        #expect((object["free_bytes"] as? NSNumber)?.uint64Value == df.availableBytes, "\(json.stdout) df: \(df)")
        #expect((object["used_percent"] as? NSNumber)?.intValue == df.percent, "\(json.stdout) df: \(df)")

        let details = try chroot.run("usedspace", ["status", "--path", "/", "--details"], proc: procMounted)
        #expect(details.status == 0, "\(details.stdout) \(details.stderr)")
        #expect(details.stdout.contains("Mounted on:\t- (not in the mount table)"), "\(details.stdout)")
        #expect(details.stdout.contains("Used:\t"), "\(details.stdout)")

        let template = try chroot.run("usedspace", ["status", "--path", "/", "--template", "{mountpoint} {fstype} {used_percent}"],
                                      proc: procMounted)
        #expect(template.stdout == "- - \(df.percent)%\n" || template.stdout == "- - \(df.percent)\n", "\(template.stdout) \(template.stderr)")
    }

    static func checkList(procMounted: Bool) throws {
        let chroot = try Self.chroot()
        let df = try Self.diskFree(chroot, proc: procMounted)
        let json = try chroot.run("usedspace", ["list", "--format", "json", "--no-daemon"], proc: procMounted)
        #expect(json.status == 0, "\(json.stdout) \(json.stderr)")
        // Without /proc there is no table: said once, and / is listed all the same.
        #expect(procMounted ? json.stderr.isEmpty : json.stderr.contains("cannot read /proc/self/mountinfo"), "\(json.stderr)")
        let rows = try json.stdout.split(separator: "\n").map { try Self.object(String($0)) }
        #expect(rows.count == 1, "\(json.stdout)")
        let row = try #require(rows.first)
        #expect(row["path"] as? String == "/" && row["mountpoint"] is NSNull && row["fstype"] is NSNull, "\(json.stdout)")
        #expect((row["used_bytes"] as? NSNumber)?.uint64Value == df.usedBytes, "\(json.stdout) df: \(df)")
        #expect((row["used_percent"] as? NSNumber)?.intValue == df.percent, "\(json.stdout) df: \(df)")

        let table = try chroot.run("usedspace", ["list", "--no-daemon"], proc: procMounted)
        #expect(table.status == 0, "\(table.stdout) \(table.stderr)")
        let line = table.stdout.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
        let cells = line.split(separator: " ", omittingEmptySubsequences: true)
        #expect(cells.count > 2 && cells[0] == "/" && cells[1] == "-" && line.contains("\(df.percent)%"), "\(table.stdout)")
    }

    /// `watch` without a daemon samples there too (its thread's probe child), as often as asked.
    @Test func watchFollowsThereToo() throws {
        let chroot = try BareChroot(programs: [CommandRunner.usedspace, "/usr/bin/df", "/usr/bin/timeout"])
        let df = try Self.diskFree(chroot, proc: true)
        let watch = try chroot.run("timeout", ["2", "/bin/usedspace", "watch", "--path", "/", "--format", "json", "--interval", "200ms", "--no-daemon"],
                                   proc: true)
        #expect(watch.status == 124, "ended by timeout(1) only: \(watch.stdout) \(watch.stderr)")
        let first = try Self.object(String(watch.stdout.split(separator: "\n").first ?? ""))
        #expect(first["mountpoint"] is NSNull && first["state"] as? String == "fresh", "\(watch.stdout)")
        #expect((first["used_bytes"] as? NSNumber)?.uint64Value == df.usedBytes, "\(watch.stdout) df: \(df)")
    }

    /// The daemon, run there by hand (no systemd, no session bus), serves the same: df's
    /// numbers, the mount unknown.
    @Test func theDaemonAnswersThereToo() throws {
        let chroot = try BareChroot(programs: [CommandRunner.usedspace, CommandRunner.usedspaced, "/usr/bin/df", "/bin/sh", "/usr/bin/sleep"])
        // Waits for the socket with a deadline (5 s), then asks; df right after, as a pair.
        let script = """
            HOME=/ /bin/usedspaced --socket /tmp/d.sock --state-dir /tmp/state --path / --interval 200ms 2>/dev/null &
            tries=0; while [ ! -S /tmp/d.sock ] && [ $tries -lt 50 ]; do sleep 0.1; tries=$((tries + 1)); done
            HOME=/ USEDSPACE_SOCKET=/tmp/d.sock /bin/usedspace status --path / --format json
            /bin/df -B1 --output=\(DiskFree.outputColumns) / | { read heading; read line; echo "$line"; }
            kill $!
            """
        // Its socket and state on a filesystem of their own: / holds still.
        let result = try chroot.run("sh", ["-c", script], proc: true, tmpfsOnTmp: true)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(result.stdout) \(result.stderr)")
        let object = try Self.object(lines.first ?? "")
        let df = try DiskFree.parse(lines.last ?? "", of: "/")
        #expect(object["source"] as? String == "daemon" && object["state"] as? String == "fresh", "\(result.stdout)")
        #expect(object["mountpoint"] is NSNull && object["fstype"] is NSNull, "\(result.stdout)")
        #expect((object["used_bytes"] as? NSNumber)?.uint64Value == df.usedBytes, "\(result.stdout)")
        #expect((object["used_percent"] as? NSNumber)?.intValue == df.percent, "\(result.stdout)")
    }

    /// A mount the table does not show may be any filesystem, one that hangs too: its
    /// statvfs is made by a child process the client can leave behind, never by the client.
    @Test(Prerequisite.enabled(Prerequisite.hasCommand("strace"), "needs strace"))
    func anUnknownMountIsMeasuredInAChild() throws {
        let chroot = try Self.chroot()
        let log = chroot.filesystem + "/trace"
        let traced = try chroot.run("usedspace", ["status", "--path", "/", "--format", "json"], proc: true,
                                    tracer: ["/usr/bin/strace", "-f", "-qq", "-e", "trace=execve,statfs", "-o", log])
        #expect(traced.status == 0, "\(traced.stdout) \(traced.stderr)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        // Two steps: Debian 13's Swift 6.0.3 cannot expand #require over an optional chain here.
        let execve = try #require(lines.first { $0.contains("execve(\"/bin/usedspace\"") }, "\(lines)")
        let client = try #require(execve.split(separator: " ").first, "\(lines)")
        let statfs = lines.filter { $0.contains("statfs(\"/\"") }
        #expect(!statfs.isEmpty, "\(lines)")
        #expect(statfs.allSatisfy { $0.split(separator: " ").first != client }, "the client (\(client)) made the statfs itself: \(statfs)")
    }
}
