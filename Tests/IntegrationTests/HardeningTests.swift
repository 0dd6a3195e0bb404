import Foundation
import Testing

/// The unit's sandboxing, as it takes effect for users: a user manager run by an unprivileged
/// user (on systemd 252 such a manager ignores the mount namespace settings unless
/// PrivateUsers=yes, so a manager run by root would prove nothing). The effects are observed
/// on the running daemon (/proc, its mount namespace) and, for what only a system call can
/// show, by a probe that ExecStartPost= runs in the same sandbox (docs/RELIABILITY.md).
@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(SystemdUserManager.unprivilegedAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
                            "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter and python3"))
struct HardeningTests {
    static let user = "usedspace-test"

    /// Run by ExecStartPost= in the service's sandbox: which sockets it may open and where it
    /// may write. The answers land in the state directory, the one place it can write.
    static let probe = #"""
        import errno, json, os, socket, sys
        home = os.environ["HOME"]
        state = os.environ.get("XDG_STATE_HOME", home + "/.local/state") + "/usedspace"
        out = {}
        def attempt(name, action):
            try:
                action()
                out[name] = "ok"
            except OSError as error:
                out[name] = errno.errorcode.get(error.errno, str(error.errno))
        for name, family, kind in [("unix", socket.AF_UNIX, socket.SOCK_STREAM), ("inet", socket.AF_INET, socket.SOCK_STREAM),
                                   ("inet6", socket.AF_INET6, socket.SOCK_DGRAM), ("netlink", socket.AF_NETLINK, socket.SOCK_RAW),
                                   ("packet", socket.AF_PACKET, socket.SOCK_RAW)]:
            attempt("socket_" + name, lambda: socket.socket(family, kind).close())
        def create(directory):
            path = directory + "/hardening-probe"
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            os.unlink(path)
        for name, directory in [("home", home), ("state", state), ("tmp", "/tmp"), ("tmp_mount", sys.argv[1]), ("mnt_mount", sys.argv[2])]:
            attempt("write_" + name, lambda: create(directory))
        for name, directory in [("tmp_mount", sys.argv[1]), ("mnt_mount", sys.argv[2])]:
            attempt("statvfs_" + name, lambda: os.statvfs(directory))
        with open(state + "/probe.json.tmp", "w") as file:
            json.dump(out, file)
        os.rename(state + "/probe.json.tmp", state + "/probe.json")
        """#

    /// A tmpfs under /tmp and one under /mnt, both writable by everybody (so a refusal comes
    /// from the sandbox, not from permissions), and a user manager with the units installed.
    final class Fixture {
        let scratch: ScratchDirectory
        let tmpMount: String
        let mntMount: String
        let manager: SystemdUserManager

        init(probe: Bool = false) throws {
            scratch = try ScratchDirectory("hardening")
            tmpMount = try scratch.mountTmpfs(at: "fs", options: "size=16m,mode=1777")
            var template = Array("/mnt/usedspace-hardening-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw HarnessFailure("mkdtemp in /mnt: \(String(cString: strerror(errno)))") }
            mntMount = String(cString: made)
            do {
                try CommandRunner.shell("mount -t tmpfs -o size=8m,mode=1777 tmpfs \(quoted(mntMount))")
            } catch {
                rmdir(mntMount)
                throw error
            }
            do {
                manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
            } catch {
                Self.unmount(mntMount)
                throw error
            }
            try manager.writeConfig("[daemon]\npath = ~\npath = \(tmpMount)\npath = \(mntMount)\ninterval = 100ms\n")
            if probe {
                let script = manager.directory + "/probe.py"
                try HardeningTests.probe.write(toFile: script, atomically: true, encoding: .utf8)
                chmod(script, 0o644)
                try manager.installUnits(serviceDropIn: "ExecStartPost=-/usr/bin/python3 \(script) \(tmpMount) \(mntMount)")
            } else {
                try manager.installUnits()
            }
        }

        var home: String { manager.user!.home }
        var stateDirectory: String { manager.stateDirectory + "/usedspace" }

        /// Starts the service through its socket (the first query) and returns its PID.
        func startThroughTheSocket() throws -> pid_t {
            let socket = try manager.systemctl("start", "usedspace.socket")
            guard socket.status == 0 else { throw HarnessFailure("usedspace.socket: \(socket.stderr)") }
            let status = try manager.usedspace("status", "--all", "--format", "json")
            guard status.status == 0, status.stdout.contains("\"source\":\"daemon\"") else {
                throw HarnessFailure("no answer from the daemon: \(status.stdout) \(status.stderr)")
            }
            guard let pid = try manager.mainPID() else { throw HarnessFailure("usedspace.service has no main PID") }
            return pid
        }

        /// The probe's findings (it runs after READY=1).
        func probeResults() throws -> [String: String] {
            let path = stateDirectory + "/probe.json"
            var results: [String: String]?
            waitUntil(seconds: 10) {
                results = (try? Data(contentsOf: URL(fileURLWithPath: path)))
                    .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: String] }
                return results != nil
            }
            return try #require(results, "the probe wrote nothing to \(path)")
        }

        static func unmount(_ path: String) {
            _ = try? CommandRunner.shell("umount -l \(quoted(path))")
            rmdir(path)
        }

        deinit { Self.unmount(mntMount) }
    }

    /// A file of /proc read to its end (String(contentsOfFile:) stops after the first page).
    static func readProc(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.readToEnd()).map { String(decoding: $0 ?? Data(), as: UTF8.self) }
    }

    static func statusFields(_ pid: pid_t) throws -> [String: String] {
        let text = try #require(readProc("/proc/\(pid)/status"))
        return Dictionary(text.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces)) : nil
        }, uniquingKeysWith: { first, _ in first })
    }

    @Test func startsThroughItsSocketAndWorksInsideTheSandbox() throws {
        let fixture = try Fixture()
        let manager = fixture.manager
        // The unit makes its own state directory (other services of the user may have made
        // ~/.local/state already, or not).
        try #require(!FileManager.default.fileExists(atPath: fixture.stateDirectory), "a fresh home has no usedspace state")
        let since = Date()
        #expect(try manager.systemctl("start", "usedspace.socket").status == 0)
        #expect(try manager.property("usedspace.service", "ActiveState") == "inactive")

        let status = try manager.usedspace("status", "--all", "--format", "json")
        #expect(status.status == 0, "\(status.stderr)")
        let snapshots = status.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(Set(snapshots.compactMap { $0["path"] as? String }) == [fixture.home, fixture.tmpMount, fixture.mntMount])
        #expect(snapshots.allSatisfy { $0["source"] as? String == "daemon" && $0["state"] as? String == "fresh" }, "\(status.stdout)")
        for mount in [fixture.tmpMount, fixture.mntMount] {
            let snapshot = try #require(snapshots.first { $0["path"] as? String == mount })
            let df = try DiskFree.of(mount)
            #expect(snapshot["mountpoint"] as? String == mount)
            #expect(snapshot["fstype"] as? String == "tmpfs")
            #expect(snapshot["total_bytes"] as? Int == Int(df.sizeBytes))
            #expect(snapshot["used_bytes"] as? Int == Int(df.usedBytes))
        }

        // Type=notify: READY=1 and STATUS= came through sd_notify from inside the sandbox.
        #expect(try manager.property("usedspace.service", "ActiveState") == "active")
        #expect(try manager.property("usedspace.service", "StatusText").contains("used of \(fixture.tmpMount)"))
        let pid = try #require(try manager.mainPID())

        // The state file, in a state directory that the unit had to create first.
        let stateFile = fixture.stateDirectory + "/state.json"
        #expect(waitUntil(seconds: 5) { FileManager.default.fileExists(atPath: stateFile) })
        let attributes = try FileManager.default.attributesOfItem(atPath: stateFile)
        #expect(attributes[.ownerAccountID] as? Int == Int(manager.user!.uid))
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: fixture.stateDirectory)[.posixPermissions] as? Int == 0o700)

        // journald, and a reload (ExecReload= sends SIGHUP from its own sandbox).
        #expect(try manager.systemctl("reload", "usedspace.service").status == 0)
        #expect(waitUntil(seconds: 5) {
            let messages = ((try? manager.journal(since: since, pid: String(pid))) ?? []).compactMap { $0["MESSAGE"] as? String }
            return messages.contains { $0.hasPrefix("ready: ") } && messages.contains { $0.hasPrefix("reloaded ") }
        })
        #expect(try manager.mainPID() == pid)
        #expect(try manager.property("usedspace.service", "NRestarts") == "0")
        // Stopped, it saves every path's last snapshot (while it runs, at most once a minute).
        #expect(try manager.systemctl("stop", "usedspace.service").status == 0)
        let saved = try String(contentsOfFile: stateFile, encoding: .utf8)
        for path in [fixture.tmpMount, fixture.mntMount] { #expect(saved.contains("\"path\":\"\(path)\""), "\(path): \(saved)") }
    }

    @Test func theDaemonRunsWithoutPrivilegesUnderASeccompFilterInAUserNamespaceOfItsOwn() throws {
        let fixture = try Fixture()
        let pid = try fixture.startThroughTheSocket()
        let uid = fixture.manager.user!.uid
        let status = try Self.statusFields(pid)
        #expect(status["NoNewPrivs"] == "1")
        #expect(status["Seccomp"] == "2", "filter mode")
        #expect(Int(status["Seccomp_filters"] ?? "") ?? 0 > 0)
        #expect(status["CapEff"] == "0000000000000000")
        #expect(status["CapBnd"] == "0000000000000000", "CapabilityBoundingSet= (applied inside the user namespace)")
        #expect(status["Uid"]?.split(separator: "\t").allSatisfy { $0 == "\(uid)" } == true)
        // PrivateUsers=yes: only the user itself is mapped, in a user namespace that is not the manager's.
        let uidMap = try #require(Self.readProc("/proc/\(pid)/uid_map"))
        #expect(uidMap.split(whereSeparator: \.isWhitespace) == ["\(uid)", "\(uid)", "1"])
        let managerPID = fixture.manager.managerPID
        let namespaces = ["user", "mnt", "uts"].map { name in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/\(name)")) ?? "daemon",
             (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(managerPID)/ns/\(name)")) ?? "manager")
        }
        for (daemon, manager) in namespaces { #expect(daemon != manager, "\(daemon)") }
    }

    @Test func theDaemonHasOnlyUnixSocketsAndCanOpenNoOther() throws {
        let fixture = try Fixture(probe: true)
        let pid = try fixture.startThroughTheSocket()
        // Keep a client connected, so that an accepted connection is among the descriptors.
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        watch.arguments = ["--reuid=\(fixture.manager.user!.uid)", "--regid=\(fixture.manager.user!.gid)", "--init-groups", "--",
                           CommandRunner.usedspace, "watch", "--all"]
        watch.environment = fixture.manager.environment
        watch.standardOutput = FileHandle.nullDevice
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        defer {
            watch.terminate()
            watch.waitUntilExit()
        }

        func socketInodes() throws -> Set<String> {
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
            return Set(descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
                .compactMap { $0.wholeMatch(of: /socket:\[(\d+)\]/).map { String($0.output.1) } })
        }
        /// The inodes listed in one of the daemon's /proc/PID/net tables (its network namespace).
        func inodes(in table: String) -> Set<String> {
            guard let text = Self.readProc("/proc/\(pid)/net/\(table)") else { return [] }
            let lines = text.split(separator: "\n").dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true) }
            let column = ["unix": 6, "packet": 8][table] ?? 9   // the Inode column
            return Set(lines.compactMap { $0.count > column ? String($0[column]) : nil })
        }
        var sockets: Set<String> = []
        #expect(waitUntil(seconds: 15) {
            sockets = (try? socketInodes()) ?? []
            return sockets.count >= 3   // the listening socket, journald, the watch's connection
        }, "\(sockets)")
        let unix = inodes(in: "unix")
        #expect(!sockets.isEmpty && sockets.isSubset(of: unix), "not AF_UNIX: \(sockets.subtracting(unix))")
        for table in ["tcp", "tcp6", "udp", "udp6", "raw", "raw6", "udplite", "udplite6", "netlink", "packet"] {
            #expect(sockets.isDisjoint(with: inodes(in: table)), "\(table)")
        }

        // RestrictAddressFamilies=AF_UNIX, from inside the service's sandbox.
        let probe = try fixture.probeResults()
        #expect(probe["socket_unix"] == "ok")
        for family in ["inet", "inet6", "netlink", "packet"] {
            #expect(probe["socket_" + family] == "EAFNOSUPPORT", "\(family): \(probe)")
        }
    }

    @Test func onlyTheStateDirectoryIsWritableFromTheDaemonsNamespace() throws {
        let fixture = try Fixture(probe: true)
        let pid = try fixture.startThroughTheSocket()
        let user = fixture.manager.user!
        let marker = "hardening-\(UUID().uuidString)"

        // As the daemon: its mount and user namespaces, its user (seccomp is not inherited).
        func createAsDaemon(in directory: String) throws -> CommandResult {
            try CommandRunner.run("/usr/bin/nsenter", [
                "-t", String(pid), "-m", "-U", "--preserve-credentials", "-S", String(user.uid), "-G", String(user.gid),
                "--", "/bin/sh", "-c", "echo > \"$1\"/\(marker) && rm \"$1\"/\(marker)", "sh", directory,
            ])
        }
        // The same as the user outside the sandbox: the refusals are the sandbox's doing.
        func createAsUser(in directory: String) throws -> CommandResult {
            try fixture.manager.runAsUser("/bin/sh", ["-c", "echo > \"$1\"/\(marker) && rm \"$1\"/\(marker)", "sh", directory])
        }
        let refused = [fixture.home, fixture.home + "/.local/state", "/tmp", fixture.tmpMount, fixture.mntMount, user.home + "/.config/usedspace"]
        for directory in refused {
            #expect(try createAsUser(in: directory).status == 0, "\(directory) is not writable for the user at all")
            let attempt = try createAsDaemon(in: directory)
            #expect(attempt.status != 0 && attempt.stderr.contains("Read-only file system"), "\(directory): \(attempt.status) \(attempt.stderr)")
        }
        let allowed = try createAsDaemon(in: fixture.stateDirectory)
        #expect(allowed.status == 0, "\(allowed.stderr)")

        // The daemon's mount table agrees: the home is on a read-only mount, the state directory on a writable one.
        let mounts = try #require(Self.readProc("/proc/\(pid)/mountinfo")).split(separator: "\n")
            .map { $0.split(separator: " ") }.filter { $0.count > 5 }
        func options(of path: String) -> String? {
            // The longest mount point above the path; of mounts stacked there, the last (top) one.
            mounts.filter { path == String($0[4]) || path.hasPrefix($0[4] == "/" ? "/" : $0[4] + "/") }
                .reversed().max { $0[4].count < $1[4].count }.map { String($0[5]) }
        }
        #expect(options(of: fixture.home)?.hasPrefix("ro") == true)
        #expect(options(of: fixture.stateDirectory)?.hasPrefix("rw") == true)

        // And the probe, run by systemd in the service's sandbox, found the same.
        let probe = try fixture.probeResults()
        for name in ["home", "tmp", "tmp_mount", "mnt_mount"] {
            #expect(probe["write_" + name] == "EROFS", "\(name): \(probe)")
        }
        #expect(probe["write_state"] == "ok")
        #expect(probe["statvfs_tmp_mount"] == "ok" && probe["statvfs_mnt_mount"] == "ok")
    }

    /// A direct run under strace (no systemd): every file the daemon creates, replaces,
    /// renames or removes over a start, a publish, a reload and a stop is in its state
    /// directory or is its socket. What it only reads may be anywhere.
    @Test(Prerequisite.enabled(Prerequisite.hasCommand("strace"), "needs strace"))
    func overAPublishTheDaemonWritesOnlyUnderItsStateDirectory() throws {
        let scratch = try ScratchDirectory("hardening-strace")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=16m")
        let state = scratch.subpath("state")   // created by the daemon
        let socketPath = scratch.subpath("usedspace.sock")
        let traces = scratch.subpath("trace")
        try FileManager.default.createDirectory(atPath: traces, withIntermediateDirectories: true)

        let strace = Process()
        strace.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        strace.arguments = [
            "-ff", "-qq", "-o", traces + "/t",
            "-e", "trace=open,openat,openat2,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,bind,link,linkat,symlink,symlinkat,truncate,chmod,fchmodat,mknod,mknodat",
            "--", CommandRunner.usedspaced, "--socket", socketPath, "--state-dir", state, "--path", mount, "--interval", "100ms",
        ]
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("NOTIFY_") || key.hasPrefix("LISTEN_") || key.hasPrefix("WATCHDOG_")
            || key == "JOURNAL_STREAM" || key == "DBUS_SESSION_BUS_ADDRESS" || key.hasPrefix("XDG_") {
            environment[key] = nil
        }
        environment["HOME"] = scratch.subpath("home")
        environment["XDG_CONFIG_HOME"] = scratch.subpath("config")
        strace.environment = environment
        strace.standardOutput = FileHandle.nullDevice
        strace.standardError = FileHandle.nullDevice
        try strace.run()
        defer {
            if strace.isRunning {
                strace.terminate()
                strace.waitUntilExit()
            }
        }
        let answering = waitUntil(seconds: 30) {
            (try? ProtocolClient(path: socketPath).request("ping", timeout: 1))?.lines == ["pong"]
        }
        try #require(answering)
        let client = try ProtocolClient(path: socketPath)
        let first = try #require(try client.request("subscribe format=json").json)
        try Data(count: 4 << 20).write(to: URL(fileURLWithPath: mount + "/data"))
        let update = try #require(try client.readFrame(timeout: 10))
        #expect(update.json?["seq"] as? Int == (first["seq"] as? Int ?? 0) + 1)

        // A reload, then a stop: SIGHUP and SIGTERM to the daemon, strace's child.
        let children = try CommandRunner.run("/usr/bin/pgrep", ["-P", String(strace.processIdentifier)]).stdout
        let daemon = try #require(children.split(separator: "\n").first.flatMap { pid_t($0) })
        kill(daemon, SIGHUP)
        #expect(try ProtocolClient(path: socketPath).request("status json").json?["path"] as? String == mount)
        kill(daemon, SIGTERM)
        #expect(waitUntil(seconds: 15) { !strace.isRunning })
        // Saved at the stop, with the last publish.
        #expect((try? String(contentsOfFile: state + "/state.json", encoding: .utf8))?.contains("\"seq\":\(update.json?["seq"] as? Int ?? -1)") == true)

        // strace -ff: one file per thread, so no call is split across lines.
        var writes: [(call: String, path: String, result: String)] = []
        var failedOutside: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: traces) {
            for line in try String(contentsOfFile: traces + "/" + file, encoding: .utf8).split(separator: "\n") {
                guard let call = line.firstMatch(of: /^(\w+)\((.*)\)\s+=\s+(-?\d+)(.*)$/) else { continue }
                let (name, arguments, result) = (String(call.output.1), String(call.output.2), String(call.output.3))
                let paths = arguments.matches(of: /"((?:[^"\\]|\\.)*)"/).map { String($0.output.1) }
                let isWrite: Bool
                switch name {
                case "open", "openat", "openat2":
                    isWrite = arguments.contains(/O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/)
                default:
                    isWrite = true
                }
                guard isWrite else { continue }
                if name.hasPrefix("open") || name == "creat" || name.hasPrefix("mkdir") || name.hasPrefix("unlink") || name == "rmdir" {
                    #expect(arguments.hasPrefix("\"") || arguments.hasPrefix("AT_FDCWD"), "relative to a descriptor: \(line)")
                }
                for path in paths {
                    if result.hasPrefix("-") {
                        if !(path.hasPrefix(state + "/") || path == state || path == socketPath) { failedOutside.append(String(line)) }
                    } else {
                        writes.append((name, path, result))
                    }
                }
            }
        }
        let outside = writes.filter { !($0.path.hasPrefix(state + "/") || $0.path == state || $0.path == socketPath) }
        #expect(outside.isEmpty, "written outside \(state): \(outside)")
        // Creating the state directory tries its existing ancestors first: that, and only that, fails.
        #expect(failedOutside.allSatisfy { $0.hasPrefix("mkdir(") && $0.contains("EEXIST") }, "\(failedOutside)")
        #expect(writes.contains { $0.call.hasPrefix("rename") && $0.path == state + "/state.json" }, "the state file was saved")
        #expect(writes.contains { $0.call == "mkdir" && $0.path == state })
        #expect(writes.contains { $0.call == "bind" && $0.path == socketPath })
    }
}
