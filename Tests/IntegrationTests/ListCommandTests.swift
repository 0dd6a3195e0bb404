import Foundation
import Testing

/// `usedspace list` on filesystems mounted for the test: which rows it shows (the rule of
/// usedspace(1)), their numbers against df's, the read-only mark, a mount that hangs, and
/// the table in a narrow terminal, a pipe and with NO_COLOR.
@Suite(.serialized) struct ListCommandTests {
    static func list(_ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 30) throws -> CommandResult {
        var base = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "XDG_RUNTIME_DIR": "/nonexistent"]
        base.merge(environment) { $1 }
        return try CommandRunner.run(CommandRunner.usedspace, ["list"] + arguments, environment: base, timeout: timeout)
    }

    static func objects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// The scratch filesystems of the rule's test: two ext4 images (one with an awkward
    /// name), a bind mount of a directory of the first, a read-only ext4, a tmpfs and a
    /// squashfs image.
    final class Machine {
        let scratch: ScratchDirectory
        let ext4: String, bind: String, readOnly: String, awkward: String, tmpfs: String, squashfs: String?

        init() throws {
            scratch = try ScratchDirectory("list")
            ext4 = try scratch.mountExt4(at: "disk", megabytes: 16, reservedPercent: 5)
            try CommandRunner.shell("mkdir \(quoted(ext4 + "/sub")) && head -c 3000000 /dev/zero > \(quoted(ext4 + "/sub/data"))")
            bind = scratch.subpath("bound")
            try FileManager.default.createDirectory(atPath: bind, withIntermediateDirectories: true)
            try CommandRunner.shell("mount --bind \(quoted(ext4 + "/sub")) \(quoted(bind))")
            readOnly = scratch.subpath("ro")
            try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
            try CommandRunner.shell("truncate -s 8M \(quoted(readOnly + ".img")) && mkfs.ext4 -q -F \(quoted(readOnly + ".img"))"
                + " && mount -o loop,ro \(quoted(readOnly + ".img")) \(quoted(readOnly))")
            awkward = try scratch.mountExt4(at: "a b\tc\nd\\e", megabytes: 8, reservedPercent: 0)
            tmpfs = try scratch.mountTmpfs(at: "mem", options: "size=4m")
            if Prerequisite.hasCommand("mksquashfs") {
                let image = scratch.subpath("snap.sqfs")
                try CommandRunner.shell("mkdir \(quoted(scratch.subpath("snapdir"))) && echo hello > \(quoted(scratch.subpath("snapdir/f")))"
                    + " && mksquashfs \(quoted(scratch.subpath("snapdir"))) \(quoted(image)) -quiet -noappend >/dev/null")
                let target = scratch.subpath("snap")
                try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
                try CommandRunner.shell("mount -t squashfs -o loop,ro \(quoted(image)) \(quoted(target))")
                squashfs = target
            } else {
                squashfs = nil
            }
        }

        var pattern: String { scratch.path + "/*" }

        deinit {
            for target in [bind, readOnly] + (squashfs.map { [$0] } ?? []) {
                _ = try? CommandRunner.shell("umount -l \(quoted(target))")
            }
        }
    }

    @Test(Prerequisite.root) func oneRowPerRealFilesystemWithDfsNumbers() throws {
        let machine = try Machine()
        let result = try Self.list(["--format", "json", "--mount", machine.pattern])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try Self.objects(result.stdout)
        let points = rows.compactMap { $0["mountpoint"] as? String }
        // The bind mount is the ext4 filesystem again, tmpfs and squashfs are hidden; sorted
        // by mount point in byte order ("a b…" < "disk" < "ro").
        #expect(points == [machine.awkward, machine.ext4, machine.readOnly])
        for row in rows {
            let point = try #require(row["mountpoint"] as? String)
            let df = try DiskFree.of(point)
            #expect(row["total_bytes"] as? Int == Int(df.sizeBytes), "\(point)")
            #expect(row["used_bytes"] as? Int == Int(df.usedBytes), "\(point)")
            #expect(row["free_bytes"] as? Int == Int(df.availableBytes), "\(point)")
            #expect(row["used_percent"] as? Int == df.percent, "\(point)")
            #expect(row["fstype"] as? String == df.type, "\(point)")
            #expect(row["state"] as? String == "fresh")
            #expect(row["read_only"] as? Bool == (point == machine.readOnly), "\(point)")
        }
        // Named by type, the hidden ones are shown; the bind mount never is.
        let memory = try Self.objects(try Self.list(["--format", "json", "--mount", machine.pattern, "--type", "tmpfs,ext4"]).stdout)
        #expect(memory.compactMap { $0["mountpoint"] as? String } == [machine.awkward, machine.ext4, machine.tmpfs, machine.readOnly])
        let excluded = try Self.objects(try Self.list(["--format", "json", "--mount", machine.pattern, "-x", "ext4"]).stdout)
        #expect(excluded.isEmpty)
        // --all is every mount, the bind mount too, as df -a.
        let all = try Self.objects(try Self.list(["--format", "json", "--mount", machine.pattern, "--all"]).stdout)
        #expect(all.contains { $0["mountpoint"] as? String == machine.bind })
    }

    /// Every row of the machine's own list against df(1), whatever is mounted: each row is
    /// bracketed by two runs of ours around df's (the root filesystem moves while tests
    /// build), and must agree in one of 20 attempts; a row whose mount went away meanwhile
    /// (other tests mount and unmount) is passed over.
    @Test func everyRealFilesystemOfTheMachineHasDfsNumbers() throws {
        let rows = try Self.objects(try Self.list(["--format", "json", "--timeout", "2s"]).stdout)
        #expect(rows.contains { $0["mountpoint"] as? String == "/" })
        var compared = 0
        for row in rows where row["state"] as? String == "fresh" {
            let point = try #require(row["mountpoint"] as? String)
            let type = try #require(row["fstype"] as? String)
            guard !point.contains(where: { "*?[\\".contains($0) }) else { continue }
            func ours() throws -> [String: Any]? {
                try Self.objects(try Self.list(["--format", "json", "--mount", point, "--type", type]).stdout).first
            }
            var difference = "never compared"
            for _ in 0..<20 {
                guard let before = try ours() else { difference = "gone"; break }
                guard let df = try? DiskFree.of(point), df.target == point else { difference = "gone"; break }
                guard let after = try ours() else { difference = "gone"; break }
                let keys = ["total_bytes", "used_bytes", "free_bytes", "used_percent"]
                guard keys.allSatisfy({ (before[$0] as? Int) == (after[$0] as? Int) }) else { continue }
                let mine = keys.map { before[$0] as? Int ?? -1 }
                let theirs = [Int(df.sizeBytes), Int(df.usedBytes), Int(df.availableBytes), df.percent]
                difference = mine == theirs ? "" : "ours \(mine), df's \(theirs)"
                if difference.isEmpty { break }
            }
            if difference == "gone" { continue }
            #expect(difference.isEmpty, "\(point) (\(type)): \(difference)")
            compared += 1
        }
        print("measured: \(compared) filesystems of this machine's list equal to df's numbers")
        #expect(compared >= 1)
    }

    @Test(Prerequisite.enabled(Prerequisite.isRoot && Prerequisite.hasCommand("mksquashfs"), "needs root and mksquashfs (squashfs-tools)"))
    func squashfsImagesOnlyWithLoops() throws {
        let machine = try Machine()
        let squashfs = try #require(machine.squashfs)
        let plain = try Self.list(["--mount", squashfs])
        #expect(plain.status == 1 && plain.stdout.isEmpty && plain.stderr.hasPrefix("usedspace: no filesystem to list"),
                "without --loops, nothing to list: \(plain.stdout)\(plain.stderr)")
        let loops = try Self.list(["--mount", squashfs, "--loops", "--format", "json"])
        let rows = try Self.objects(loops.stdout)
        #expect(rows.count == 1)
        #expect(rows.first?["fstype"] as? String == "squashfs")
        #expect(rows.first?["read_only"] as? Bool == true)
    }

    @Test(Prerequisite.root) func theTextTableMarksReadOnlyAndShowsControlCharactersAsQuestionMarks() throws {
        let machine = try Machine()
        let result = try Self.list(["--mount", machine.pattern, "--unit", "bytes"])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.count == 4, "\(result.stdout)")
        #expect(lines.first?.hasSuffix("IUse%  RO") == true, "\(lines.first ?? "")")
        let shown = machine.scratch.path + "/a b?c?d\\e"
        #expect(lines[1].hasPrefix(shown + "  ext4"), "\(lines[1])")
        #expect(lines[3].hasPrefix(machine.readOnly + " "))
        #expect(lines[3].hasSuffix("  ro"))
        #expect(!lines[2].hasSuffix("ro"))
        // df's Size in bytes is in the row, as written.
        let df = try DiskFree.of(machine.ext4)
        #expect(lines[2].contains(" \(df.sizeBytes) "))
        #expect(!result.stdout.contains("\u{1B}"), "no colour in a pipe")
        // The status line and details say it too.
        let status = try CommandRunner.run(CommandRunner.usedspace, ["status", "--no-daemon", "--path", machine.readOnly, "--details"])
        #expect(status.stdout.split(separator: "\n").first?.hasSuffix("  (read-only)") == true, "\(status.stdout)")
        #expect(status.stdout.contains("Mounted:\tread-only\n"))
        let json = try CommandRunner.run(CommandRunner.usedspace, ["status", "--no-daemon", "--path", machine.ext4, "--format", "json"])
        #expect(try Self.objects(json.stdout).first?["read_only"] as? Bool == false)
    }

    @Test(Prerequisite.root) func aNarrowTerminalLosesColumnsInTheDocumentedOrder() throws {
        let machine = try Machine()
        let wide = try Self.list(["--mount", machine.pattern], environment: ["COLUMNS": "200"])
        #expect(wide.stdout.split(separator: "\n").first?.hasPrefix("Mounted on") == true)
        #expect(wide.stdout.contains("[") && wide.stdout.contains("IUse%"))
        let narrow = try Self.list(["--mount", machine.pattern], environment: ["COLUMNS": "40"])
        let lines = narrow.stdout.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.count <= 40 }, "\(lines)")
        // The scratch mount points are longer than 20: shortened in the middle, after
        // every droppable column has gone.
        let header = try #require(lines.first)
        #expect(header.contains("Use%") && header.contains("Free") && header.contains("RO"), "\(header)")
        #expect(!header.contains("Type") && !header.contains("IUse%") && !header.contains("Size") && !header.contains("Used"), "\(header)")
        #expect(lines.dropFirst().allSatisfy { $0.contains("…") }, "\(lines)")
    }

    /// A real terminal (a pty of 60 columns): colours by level, none with NO_COLOR. A
    /// terminal that says no size (a new pty, a serial console) is still a terminal.
    @Test(Prerequisite.root) func colouredOnATerminalUnlessNoColor() throws {
        let machine = try Machine()
        try CommandRunner.shell("(head -c 14000000 /dev/zero > \(quoted(machine.ext4 + "/fill")) || true) && sync")
        // The child sizes its terminal before it runs usedspace (argv[1]: columns, 0 for none).
        let script = """
            import fcntl, os, pty, struct, sys, termios
            pid, fd = pty.fork()
            if pid == 0:
                if int(sys.argv[1]) > 0:
                    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 24, int(sys.argv[1]), 0, 0))
                os.execve(sys.argv[2], sys.argv[2:], {k: v for k, v in os.environ.items() if k != "COLUMNS"})
            out = b""
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            os.waitpid(pid, 0)
            sys.stdout.buffer.write(out)
            """
        func run(_ environment: [String: String], columns: Int = 60) throws -> String {
            // The terminal ends lines with CR LF (one Character in Swift).
            try CommandRunner.run("/usr/bin/python3", ["-c", script, String(columns), CommandRunner.usedspace, "list", "--mount", machine.ext4],
                                  environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }).stdout
                .replacingOccurrences(of: "\r\n", with: "\n")
        }
        #expect(try run([:], columns: 0).contains("\u{1B}[31m"), "a terminal without a size is coloured too")
        let coloured = try run([:])
        #expect(coloured.contains("\u{1B}[31m"), "the full filesystem is red: \(coloured.debugDescription)")
        let plain = try run(["NO_COLOR": "1"])
        #expect(!plain.contains("\u{1B}"), "\(plain.debugDescription)")
        // Fitted to the terminal's 60 columns: the long mount point is shortened.
        let lines = plain.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.count <= 60 }, "\(plain)")
        #expect(lines.last?.contains("…") == true && lines.last?.contains("/disk  ext4  100%") == true, "\(plain)")
    }

    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, fuse3 and python3-fusepy"))
    func aHungMountIsARowThatSaysSoWithinTheTimeout() throws {
        let hanging = try HangingMount()
        let scratch = try ScratchDirectory("list-hang")
        let disk = try scratch.mountExt4(at: "disk", megabytes: 8, reservedPercent: 0)
        hanging.hang()
        let started = Date()
        let result = try Self.list(["--timeout", "1s", "--mount", hanging.mountPoint, "--mount", disk], timeout: 20)
        let elapsed = Date().timeIntervalSince(started)
        print("measured: list with a hung mount and --timeout 1s returned in \(Int(elapsed * 1000)) ms")
        #expect(elapsed < 2.5, "returned after \(elapsed) s")
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix(hanging.mountPoint) && $0.hasSuffix("not answering") }, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix(disk) && $0.contains("%") }, "the other filesystem has its numbers: \(result.stdout)")
        #expect(result.stderr.contains("did not answer within 1 s"), "\(result.stderr)")
        // Every filesystem of the machine, the hung one among them: still within the timeout.
        let everything = Date()
        let all = try Self.list(["--timeout", "1s", "--format", "json"], timeout: 20)
        #expect(Date().timeIntervalSince(everything) < 2.5)
        let rows = try Self.objects(all.stdout)
        let hung = rows.first { $0["mountpoint"] as? String == hanging.mountPoint }
        #expect(hung?["state"] as? String == "failed")
        #expect(hung?["read_only"] is NSNull)
        #expect(rows.contains { $0["mountpoint"] as? String == "/" && $0["state"] as? String == "fresh" })
    }

    /// The daemon's estimate in the row of the filesystem it watches (a fast fill on a real
    /// tmpfs); a daemon that accepts but never answers delays the table by milliseconds.
    @Test(Prerequisite.enabled(Prerequisite.isRoot && Prerequisite.hasCommand("socat") && UserServiceDaemon.available,
                               "needs root, socat and systemd (a user manager and journald), useradd, setpriv, nsenter"))
    func theTimeToFullComesFromTheDaemonWhichIsNeverWaitedOn() throws {
        let scratch = try ScratchDirectory("list-trend")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=4000000000")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount])
        try daemon.waitUntilAnswering()
        let writer = try SteadyWriter(path: mount + "/runaway.log", bytesPerSecond: 50_000_000)
        defer { writer.stop() }
        let flagged = waitUntil(seconds: 60) {
            ((try? daemon.client().request("status format=json").json)??["fast_fill"]) != nil
        }
        #expect(flagged, "the daemon saw no fill")
        // As the daemon's user, who asks it.
        let json = try Self.objects(try daemon.usedspace(["list", "--type", "tmpfs", "--mount", mount, "--format", "json"]).stdout)
        let range = try #require(json.first?["time_to_full"] as? [String: Any], "\(json)")
        #expect(range["upper_seconds"] is NSNumber)
        let table = try daemon.usedspace(["list", "--type", "tmpfs", "--mount", mount]).stdout
        #expect(table.split(separator: "\n").first?.hasSuffix("Full in") == true, "\(table)")
        #expect(table.contains("minute"), "\(table)")
        let alone = try daemon.usedspace(["list", "--type", "tmpfs", "--mount", mount, "--format", "json", "--no-daemon"])
        #expect(try Self.objects(alone.stdout).first?["time_to_full"] is NSNull)

        // A socket that takes the request and never answers.
        let mute = scratch.subpath("mute.sock")
        let listener = try SpawnedProcess("/usr/bin/socat", ["UNIX-LISTEN:\(mute),fork", "SYSTEM:sleep 30"], environment: ["PATH": "/usr/bin:/bin"],
                                          logFile: scratch.subpath("socat.log"), processGroup: true)
        defer { listener.signalGroup(SIGKILL) }
        #expect(waitUntil(seconds: 5) { FileManager.default.fileExists(atPath: mute) })
        let started = Date()
        let slow = try Self.list(["--type", "tmpfs", "--mount", mount, "--format", "json"], environment: ["USEDSPACE_SOCKET": mute])
        let elapsed = Date().timeIntervalSince(started)
        print("measured: list beside a daemon that never answers: \(Int(elapsed * 1000)) ms")
        #expect(slow.status == 0)
        #expect(try Self.objects(slow.stdout).first?["time_to_full"] is NSNull)
        #expect(elapsed < 0.5, "waited \(elapsed) s on a mute daemon")
    }

    @Test func badOptionsNameTheOptionAndWhatWouldBeRight() throws {
        let cases: [([String], String)] = [
            (["--type", ""], "--type"),
            (["--type", "ext4;rm"], "--type"),
            (["-t", String(repeating: "x", count: 100_000)], "-t"),
            (["--exclude-type", "a b"], "--exclude-type"),
            (["--mount", ""], "--mount"),
            (["--unit", "parsecs"], "the units are file, si, iec, bytes"),
            (["--warn", "120%"], "--warn"),
            (["--bar-width", "500"], "--bar-width"),
            (["--format", "i3bar"], "the formats of list are text and json"),
            (["--timeout", "forever"], "--timeout"),
            (["--all=yes"], "--all"),
            (["/home"], "/home"),
            (["--frobnicate"], "--frobnicate"),
        ]
        for (arguments, named) in cases {
            let result = try Self.list(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stdout.isEmpty)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && result.stderr.hasPrefix("usedspace: ") && result.stderr.contains(named), "\(arguments): \(result.stderr)")
            #expect(result.stderr.utf8.count < 400, "the message stays short: \(arguments.first ?? "")")
        }
    }

    /// Filters that leave nothing: not an empty table, which would read as a broken one, but
    /// what df says ("no file systems processed"), in both formats.
    @Test func filtersThatMatchNothingSayItAndExitOne() throws {
        for format in ["text", "json"] {
            for filter in [["--type", "nosuchfs"], ["--mount", "/no/such/mount/*"]] {
                let result = try Self.list(filter + ["--format", format])
                #expect(result.status == 1, "\(filter) \(format)")
                #expect(result.stdout.isEmpty, "\(result.stdout)")
                #expect(result.stderr.hasPrefix("usedspace: no filesystem to list") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            }
        }
        // …while a filter that matches keeps exit status 0.
        #expect(try Self.list(["--mount", "/", "--format", "json"]).status == 0)
    }
}
