import Foundation

/// A real `systemd --user` manager (and, when none runs, a real systemd-journald) in a
/// temporary directory, for the tests of the service, its socket activation, notifications,
/// watchdog and journal entries. PID 1 need not be systemd; root is needed to create
/// /run/systemd/system (how systemctl and sd_booted() tell that systemd runs) and to start
/// journald.
///
/// `SystemdUserManager()` runs the manager as root (quick; it can apply every sandboxing
/// directive by itself). `SystemdUserManager(asUser:)` runs it as an unprivileged user, the
/// way a login does: what an unprivileged manager does with the unit's sandboxing is what
/// users get (on systemd 252 it ignores the mount namespace settings unless
/// PrivateUsers=yes, and fails units that drop capabilities without it).
final class SystemdUserManager {
    let directory: String
    let environment: [String: String]
    private let manager: SpawnedProcess
    /// The unprivileged user the manager runs as; nil when root runs it.
    let user: TestUser?
    /// The later Debian the manager and its user's programs run in (usedspace installed
    /// there by its package); nil: this machine, with the binaries under test.
    let root: GenerationRoot?
    private let userLock: Int32?
    private let cgroups: [String]
    var runtimeDirectory: String { user.map { "/run/user/\($0.uid)" } ?? directory + "/runtime" }
    var configDirectory: String { user.map { $0.home + "/.config" } ?? directory + "/config" }
    /// $XDG_STATE_HOME as the daemon resolves it (the state file is in its usedspace/).
    var stateDirectory: String { user.map { $0.home + "/.local/state" } ?? directory + "/state" }
    var unitDirectory: String { configDirectory + "/systemd/user" }
    var socketPath: String { runtimeDirectory + "/usedspace.sock" }

    /// The unprivileged user the manager runs as, with a home directory of its own for this
    /// manager (under the user's home in /home, so that ProtectHome= covers it).
    struct TestUser {
        var name: String
        var uid: uid_t
        var gid: gid_t
        var home: String
    }

    static var available: Bool {
        Prerequisite.isRoot && FileManager.default.isExecutableFile(atPath: "/usr/lib/systemd/systemd")
            && FileManager.default.isExecutableFile(atPath: "/usr/lib/systemd/systemd-journald")
    }

    /// What `init(asUser:)` needs besides `available`.
    static var unprivilegedAvailable: Bool {
        available && ["/usr/sbin/useradd", "/usr/bin/setpriv", "/usr/bin/nsenter"]
            .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init() throws {
        let scratch = try ScratchDirectory.make("systemd")
        directory = scratch
        for sub in ["runtime", "config/systemd/user", "state", "cache", "data"] {
            try FileManager.default.createDirectory(atPath: scratch + "/" + sub, withIntermediateDirectories: true)
        }
        chmod(scratch + "/runtime", 0o700)
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("NOTIFY_") || key.hasPrefix("LISTEN_") || key.hasPrefix("WATCHDOG_")
            || key == "JOURNAL_STREAM" || key == "USEDSPACE_SOCKET" || key == "DBUS_SESSION_BUS_ADDRESS" {
            environment[key] = nil
        }
        environment["XDG_RUNTIME_DIR"] = scratch + "/runtime"
        environment["XDG_CONFIG_HOME"] = scratch + "/config"
        environment["XDG_STATE_HOME"] = scratch + "/state"
        environment["XDG_CACHE_HOME"] = scratch + "/cache"
        environment["XDG_DATA_HOME"] = scratch + "/data"
        self.environment = environment
        user = nil
        root = nil
        userLock = nil
        cgroups = []
        try SharedSystemdPieces.acquire()
        do {
            manager = try SpawnedProcess("/usr/lib/systemd/systemd", ["--user"], environment: environment, logFile: scratch + "/manager.log")
        } catch {
            SharedSystemdPieces.release()
            throw error
        }
        let ready = waitUntil(seconds: 15) { FileManager.default.fileExists(atPath: scratch + "/runtime/systemd/private") }
        guard ready else {
            // Every property is set by now, so deinit runs and releases the shared pieces.
            manager.stop()
            let log = (try? String(contentsOfFile: scratch + "/manager.log", encoding: .utf8)) ?? ""
            throw HarnessFailure("systemd --user did not start: \(log)")
        }
    }

    /// The unprivileged users the tests' managers run as. Managers of one user take turns
    /// (they share /run/user/UID and the cgroup), so a few users let suites run side by side.
    static let pool = ["usedspace-test", "usedspace-test2", "usedspace-test3"]

    /// A manager run by an unprivileged user (created when missing), like a real login: its
    /// own delegated cgroup, $XDG_RUNTIME_DIR at /run/user/UID, a fresh home directory under
    /// the user's home, no other XDG variables (so the daemon uses ~/.config and
    /// ~/.local/state), and the session bus at $XDG_RUNTIME_DIR/bus (dbus.socket, as
    /// dbus-user-session provides). The first of `names` that no other manager (also of
    /// other test processes) uses is taken. (The manager puts the inaccessible nodes it
    /// mounts over hidden paths in /run/user/UID/systemd, whatever XDG_RUNTIME_DIR says: so
    /// it must be that directory.)
    ///
    /// It runs in a mount namespace of its own, a slave of the host's, as a session of a
    /// systemd host: a mount made later anywhere reaches it and its services. Other
    /// people's FUSE and network mounts that were there before the tests started are
    /// detached from it (lazily, touching nothing of them): the tests check usedspace, not
    /// whatever else this machine has mounted (some of it may hang).
    ///
    /// `in root`: the manager is the root's own systemd, run in the root (GenerationRoot) as
    /// the same user, with the same home and runtime directory.
    init(asUser names: [String] = SystemdUserManager.pool, in root: GenerationRoot? = nil) throws {
        let (lock, name) = try Self.lockAny(names.map { ($0, "/run/usedspace-test-user-\($0).lock") }, seconds: 300,
                                            usable: Self.hasNoLeftovers)
        userLock = lock
        self.root = root
        var made: TestUser?
        do {
            let user = try Self.makeUser(name)
            made = user
            self.user = user
            try root?.addUser(name)
            directory = try ScratchDirectory.make("systemd")
            let runtime = "/run/user/\(user.uid)"
            try? FileManager.default.removeItem(atPath: runtime)
            try FileManager.default.createDirectory(atPath: "/run/user", withIntermediateDirectories: true)
            for path in [runtime, user.home + "/.config", user.home + "/.config/systemd", user.home + "/.config/systemd/user"] {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
                chown(path, user.uid, user.gid)
            }
            chmod(runtime, 0o700)
            cgroups = Self.delegatedCgroups(uid: user.uid)
            environment = [
                "HOME": user.home, "USER": name, "LOGNAME": name, "SHELL": "/bin/sh", "LANG": "C.UTF-8",
                "PATH": "/usr/local/bin:/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime,
                "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(runtime)/bus",
                // Its default, said: dbus-daemon takes the passwd entry's home (not this
                // test's) for its per-user service files unless told.
                "XDG_DATA_HOME": user.home + "/.local/share",
            ]
        } catch {
            if let made { try? FileManager.default.removeItem(atPath: made.home) }
            Self.unlock(userLock)
            throw error
        }
        do {
            try SharedSystemdPieces.acquire()
        } catch {
            Self.cleanUp(user: user, cgroups: cgroups, directory: directory, lock: userLock)
            throw error
        }
        ManagerExitGate.enterUnprivileged()
        // Into its cgroup first (as root: made, given to the user and joined at once, again if
        // an exiting manager trimmed it away meanwhile), then its mount namespace, then the
        // user; the journal gets the manager's own messages, such as why a unit's sandbox
        // could not be set up.
        let detach = ForeignMounts.current().map { "umount -l -c -i \(quoted($0)) 2>/dev/null" }.joined(separator: "; ")
        let manager = "/usr/bin/setpriv --reuid=\(user!.uid) --regid=\(user!.gid) --init-groups /usr/lib/systemd/systemd --user --log-target=journal"
        // In a root, its namespace is the session's (other people's mounts are not in it).
        let session = root.map { root in
            let command = root.command("/bin/sh", ["-c", "exec " + manager])
            return ([command.executable] + command.arguments).map(quoted).joined(separator: " ")
        } ?? "/usr/bin/unshare --mount --propagation slave -- /bin/sh -c \(quoted((detach.isEmpty ? "" : detach + "; ") + "exec " + manager))"
        let script = """
            for cgroup in "$@"; do
                for attempt in 1 2 3 4 5 6 7 8 9 10; do
                    mkdir -p "$cgroup" && chown -R \(user!.uid):\(user!.gid) "$cgroup" && echo $$ > "$cgroup/cgroup.procs" && break
                    sleep 0.05
                done
            done
            exec \(session)
            """
        do {
            self.manager = try SpawnedProcess("/bin/sh", ["-c", script, "sh"] + cgroups, environment: environment, logFile: directory + "/manager.log")
        } catch {
            Self.cleanUp(user: user, cgroups: cgroups, directory: directory, lock: userLock)
            ManagerExitGate.leaveUnprivileged()
            throw error
        }
        let ready = waitUntil(seconds: 15) { FileManager.default.fileExists(atPath: self.runtimeDirectory + "/systemd/private") }
        guard ready else {
            self.manager.stop()
            let log = (try? String(contentsOfFile: directory + "/manager.log", encoding: .utf8)) ?? ""
            throw HarnessFailure("systemd --user (as \(name)) did not start: \(log)")   // deinit cleans up
        }
    }

    deinit {
        if user == nil { ManagerExitGate.enterRootExit() }
        _ = try? systemctl("exit")
        if !waitUntil(seconds: 10, { !self.manager.isRunning }) { manager.stop() }
        if user != nil {
            cleanUpUser()
            ManagerExitGate.leaveUnprivileged()
        } else {
            ManagerExitGate.leaveRootExit()
            SharedSystemdPieces.release()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// After the manager has gone: its cgroups, runtime and home directories, the lock.
    private func cleanUpUser() {
        Self.cleanUp(user: user, cgroups: cgroups, directory: directory, lock: userLock)
    }

    private static func cleanUp(user: TestUser?, cgroups: [String], directory: String, lock: Int32?) {
        for cgroup in cgroups {
            _ = try? CommandRunner.shell("find \(quoted(cgroup)) -depth -type d -exec rmdir {} + 2>/dev/null; "
                                         + "rmdir \(quoted((cgroup as NSString).deletingLastPathComponent)) 2>/dev/null; true")
        }
        if let user {
            try? FileManager.default.removeItem(atPath: "/run/user/\(user.uid)")
            try? FileManager.default.removeItem(atPath: user.home)
        }
        SharedSystemdPieces.release()
        try? FileManager.default.removeItem(atPath: directory)
        unlock(lock)
    }

    @discardableResult
    func systemctl(_ arguments: String...) throws -> CommandResult {
        try runAsUser("/usr/bin/systemctl", ["--user"] + arguments, timeout: 60)
    }

    /// Runs a command as the manager's user (root for the default manager) in its environment.
    func runAsUser(_ executable: String, _ arguments: [String], timeout: TimeInterval = 30) throws -> CommandResult {
        try CommandRunner.run(userCommand.executable, userCommand.arguments + [executable] + arguments, environment: environment, timeout: timeout)
    }

    /// The command that runs what follows it as the manager's user (root for the default
    /// manager), in the manager's mount namespace: what a program of the user's session sees.
    var userCommand: (executable: String, arguments: [String]) {
        guard let user else { return ("/usr/bin/env", ["--"]) }
        let asUser = ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--init-groups", "--"]
        if let root { return root.command("/usr/bin/setpriv", asUser) }
        return ("/usr/bin/nsenter", ["-t", String(manager.pid), "-m", "--", "/usr/bin/setpriv"] + asUser)
    }

    /// The client and the daemon the user's session runs: the package's in a root, else
    /// those under test.
    var clientPath: String { root == nil ? CommandRunner.usedspace : "/usr/bin/usedspace" }
    var daemonPath: String { root == nil ? CommandRunner.usedspaced : "/usr/bin/usedspaced" }

    /// The manager's process.
    var managerPID: pid_t { manager.pid }

    /// The service's main process, when it runs.
    func mainPID(_ unit: String = "usedspace.service") throws -> pid_t? {
        pid_t(try property(unit, "MainPID")).flatMap { $0 > 0 ? $0 : nil }
    }

    /// Gives `path` (and what is under it) to the manager's user; nothing for root's manager.
    func giveToUser(_ path: String) throws {
        guard let user else { return }
        try CommandRunner.shell("chown -R \(user.uid):\(user.gid) \(quoted(path))")
    }

    private static func makeUser(_ name: String) throws -> TestUser {
        if getpwnam(name) == nil {
            try CommandRunner.shell("useradd --create-home --shell /usr/sbin/nologin \(quoted(name))")
        }
        guard let entry = getpwnam(name) else { throw HarnessFailure("no user \(name)") }
        let (uid, gid) = (entry.pointee.pw_uid, entry.pointee.pw_gid)
        let base = String(cString: entry.pointee.pw_dir)
        guard uid != 0, base.hasPrefix("/home/") else { throw HarnessFailure("\(name) must be an unprivileged user with its home under /home") }
        if !FileManager.default.fileExists(atPath: base) {
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            chown(base, uid, gid)
            chmod(base, 0o700)
        }
        var template = Array((base + "/home-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessFailure("mkdtemp in \(base): \(String(cString: strerror(errno)))") }
        let home = String(cString: made)
        chown(home, uid, gid)
        chmod(home, 0o700)
        return TestUser(name: name, uid: uid, gid: gid, home: home)
    }

    /// The cgroup of user@UID.service in every hierarchy that systemd uses here (hybrid:
    /// name=systemd and unified; or a unified /sys/fs/cgroup).
    private static func delegatedCgroups(uid: uid_t) -> [String] {
        let path = "user.slice/user-\(uid).slice/user@\(uid).service"
        if FileManager.default.fileExists(atPath: "/sys/fs/cgroup/cgroup.controllers") { return ["/sys/fs/cgroup/" + path] }
        return ["/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified"]
            .filter { FileManager.default.fileExists(atPath: $0) }
            .map { $0 + "/" + path }
    }

    /// Whether no process is left in the user's delegated cgroups (checked with the user's
    /// lock held, so no manager of that user runs). A process that a hung filesystem holds in
    /// the kernel (a thread in D state, immune to SIGKILL: a daemon started by an older
    /// harness that still saw /mnt/foreign-hung) stays in its unit's cgroup for good; every
    /// later manager of that user then finds it in usedspace.service's cgroup, and each stop
    /// of the service waits for it (TimeoutStopSec=, then SIGKILL and as long again) and fails
    /// with Result=timeout: such a user is not a clean login, and is passed over (said on
    /// stderr).
    private static func hasNoLeftovers(_ name: String) -> Bool {
        guard let entry = getpwnam(name) else { return true }
        let uid = entry.pointee.pw_uid
        var left: [String] = []
        for cgroup in delegatedCgroups(uid: uid) {
            var files = [cgroup + "/cgroup.procs"]
            if let walker = FileManager.default.enumerator(atPath: cgroup) {
                for case let path as String in walker where path.hasSuffix("/cgroup.procs") { files.append(cgroup + "/" + path) }
            }
            for file in files {
                let pids = (readProcFile(file) ?? "").split(separator: "\n").map(String.init)
                left += pids.map { "\($0) (\((readProcFile("/proc/\($0)/comm") ?? "?").trimmingCharacters(in: .whitespacesAndNewlines))) in \(file)" }
            }
        }
        guard left.isEmpty else {
            FileHandle.standardError.write(Data("harness: passing over test user \(name): processes left in its cgroups: \(left.joined(separator: ", "))\n".utf8))
            return false
        }
        return true
    }

    /// Locks the first of `candidates` that is free and `usable`, waiting up to `seconds` for one.
    private static func lockAny(_ candidates: [(name: String, path: String)], seconds: Double,
                                usable: (String) -> Bool = { _ in true }) throws -> (Int32, String) {
        var descriptors: [Int32] = []
        for candidate in candidates {
            let descriptor = open(candidate.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                descriptors.forEach { close($0) }
                throw HarnessFailure("open \(candidate.path): \(String(cString: strerror(errno)))")
            }
            descriptors.append(descriptor)
        }
        var taken: Int?
        var passedOver: Set<Int> = []
        waitUntil(seconds: seconds) {
            for (index, descriptor) in descriptors.enumerated() where !passedOver.contains(index) && flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                if usable(candidates[index].name) {
                    taken = index
                    return true
                }
                flock(descriptor, LOCK_UN)
                passedOver.insert(index)
            }
            return false
        }
        for (index, descriptor) in descriptors.enumerated() where index != taken { close(descriptor) }
        guard let taken else {
            throw HarnessFailure("other tests hold every test user: \(candidates.map(\.name))"
                                 + (passedOver.isEmpty ? "" : "; passed over (processes left in their cgroups): \(passedOver.sorted().map { candidates[$0].name })"))
        }
        return (descriptors[taken], candidates[taken].name)
    }

    private static func unlock(_ descriptor: Int32?) {
        if let descriptor { close(descriptor) }
    }

    func property(_ unit: String, _ name: String) throws -> String {
        try systemctl("show", "-p", name, "--value", unit).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Installs the project's unit files with ExecStart pointing at the built daemon, plus
    /// optional drop-in settings for the service (e.g. a short watchdog for a test).
    /// `writersHelper: false` leaves out the helper that names who is filling a disk
    /// (usedspace-writers.socket and its service), as an install that lacks it: masked, so
    /// that the package another suite installs on this machine meanwhile
    /// (/usr/lib/systemd/user) does not provide them.
    func installUnits(serviceDropIn: String? = nil, writersHelper: Bool = true) throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("systemd")
        var units = ["usedspace.service", "usedspace.socket"]
        if writersHelper { units += ["usedspace-writers@.service", "usedspace-writers.socket"] }
        // In a root, the units are the package's (/usr/lib/systemd/user).
        if root != nil { units = [] }
        for unit in units {
            let text = try String(contentsOf: repository.appendingPathComponent(unit), encoding: .utf8)
                .replacingOccurrences(of: "@bindir@", with: CommandRunner.productsDirectory.path)
            try text.write(toFile: unitDirectory + "/" + unit, atomically: true, encoding: .utf8)
        }
        if !writersHelper {
            for unit in ["usedspace-writers@.service", "usedspace-writers.socket"] {
                try FileManager.default.createSymbolicLink(atPath: unitDirectory + "/" + unit, withDestinationPath: "/dev/null")
            }
        }
        if let serviceDropIn {
            try FileManager.default.createDirectory(atPath: unitDirectory + "/usedspace.service.d", withIntermediateDirectories: true)
            try ("[Service]\n" + serviceDropIn + "\n").write(toFile: unitDirectory + "/usedspace.service.d/test.conf", atomically: true, encoding: .utf8)
        }
        if user == nil {
            // Root's manager keeps $XDG_STATE_HOME in the scratch directory, not in
            // ~/.local/state, the only state directory the unit makes writable: the drop-in a
            // user with another XDG_STATE_HOME needs (docs/RELIABILITY.md).
            try FileManager.default.createDirectory(atPath: unitDirectory + "/usedspace.service.d", withIntermediateDirectories: true)
            try "[Service]\nReadWritePaths=\(stateDirectory)\n".write(toFile: unitDirectory + "/usedspace.service.d/harness-state.conf",
                                                                  atomically: true, encoding: .utf8)
        }
        try giveToUser(unitDirectory)
        let reload = try systemctl("daemon-reload")
        guard reload.status == 0 else { throw HarnessFailure("daemon-reload failed: \(reload.stderr)") }
    }

    func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: configDirectory + "/usedspace", withIntermediateDirectories: true)
        try text.write(toFile: configDirectory + "/usedspace/config", atomically: true, encoding: .utf8)
        try giveToUser(configDirectory + "/usedspace")
    }

    /// A protocol connection to the service's socket, as the manager's user.
    func client() throws -> ProtocolClient {
        try ProtocolClient(path: socketPath, as: user.map { ($0.uid, $0.gid) })
    }

    /// Runs the client against this manager's socket.
    func usedspace(_ arguments: String...) throws -> CommandResult {
        try runAsUser(clientPath, arguments)
    }

    /// The journal entries of usedspaced since `since`, as JSON objects.
    func journal(since: Date, pid: String? = nil) throws -> [[String: Any]] {
        var arguments = ["--no-pager", "-o", "json", "--since", "@\(Int(since.timeIntervalSince1970) - 1)", "SYSLOG_IDENTIFIER=usedspaced"]
        if let pid { arguments.append("_PID=\(pid)") }
        _ = try? CommandRunner.run("/usr/bin/journalctl", ["--sync"])
        let result = try CommandRunner.run("/usr/bin/journalctl", arguments)
        return result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// A manager run by root from this process has the whole cgroup tree as its own (its cgroup
/// is /init.scope), and when it exits it removes every empty cgroup in it: also those an
/// unprivileged user's manager has just made for a unit and not yet joined (the unit then
/// fails: "Failed to attach to cgroup ... No such file or directory"). So root's managers do
/// not exit while a manager of an unprivileged user runs in this process, and the other way
/// round; each side waits a bounded time, then goes ahead.
enum ManagerExitGate {
    private static let state = Locked((unprivileged: 0, rootExiting: 0))

    static func enterUnprivileged() {
        enter(when: { $0.rootExiting == 0 }, then: { $0.unprivileged += 1 })
    }

    static func leaveUnprivileged() { state.update { $0.unprivileged -= 1 } }

    static func enterRootExit() {
        enter(when: { $0.unprivileged == 0 }, then: { $0.rootExiting += 1 })
    }

    private static func enter(when isClear: ((unprivileged: Int, rootExiting: Int)) -> Bool,
                              then count: (inout (unprivileged: Int, rootExiting: Int)) -> Void) {
        let deadline = Date().addingTimeInterval(30)
        while true {
            let entered = state.update { gate -> Bool in
                guard isClear(gate) || Date() >= deadline else { return false }
                count(&gate)
                return true
            }
            if entered { return }
            usleep(10_000)
        }
    }

    static func leaveRootExit() { state.update { $0.rootExiting -= 1 } }
}

/// /run/systemd/system and journald are machine-wide: the first manager creates or starts
/// them when missing, the last one removes or stops what was created. "First" and "last"
/// across every test process on the machine (suites of other checkouts run side by side):
/// each process that uses them holds a shared lock on `usersLock`, and they are taken down
/// only by a process that then gets it exclusively. (A journald stopped under another
/// process's running services drops their log lines: a test reading the journal then misses
/// what the daemon said; with /run/systemd/system gone, systemctl says systemd does not run.)
enum SharedSystemdPieces {
    private static let state = Locked((users: 0, usersLock: Int32?.none, journald: SpawnedProcess?.none))
    /// Held exclusively while deciding what to set up or take down.
    private static let decisionLock = "/run/usedspace-test-systemd.lock"
    /// Held shared by every process that uses the pieces.
    private static let usersLock = "/run/usedspace-test-systemd.users"
    /// Present while /run/systemd/system is one the tests made.
    private static let bootedMarker = "/run/usedspace-test-systemd.created-booted"
    /// The journald the tests started, whichever process did.
    private static let journaldPIDFile = "/run/usedspace-test-systemd.journald-pid"

    static func acquire() throws {
        try state.update { state in
            state.users += 1
            guard state.users == 1 else { return }
            do {
                let decision = try lock(decisionLock, LOCK_EX)
                defer { close(decision) }
                state.usersLock = try lock(usersLock, LOCK_SH)
                try makeSandboxingWork()
                if !FileManager.default.fileExists(atPath: "/run/systemd/system") {
                    try FileManager.default.createDirectory(atPath: "/run/systemd/system", withIntermediateDirectories: true)
                    FileManager.default.createFile(atPath: bootedMarker, contents: nil)
                }
                let running = (try? CommandRunner.run("/usr/bin/pgrep", ["-x", "systemd-journal"]).status) == 0
                if !running {
                    try FileManager.default.createDirectory(atPath: "/run/systemd/journal", withIntermediateDirectories: true)
                    for socket in ["socket", "stdout", "dev-log"] { try? FileManager.default.removeItem(atPath: "/run/systemd/journal/" + socket) }
                    let journald = try SpawnedProcess("/usr/lib/systemd/systemd-journald", [], environment: [:], logFile: "/dev/null")
                    state.journald = journald
                    try "\(journald.pid)\n".write(toFile: journaldPIDFile, atomically: true, encoding: .utf8)
                    _ = waitUntil(seconds: 10) { FileManager.default.fileExists(atPath: "/run/systemd/journal/stdout") }
                }
            } catch {
                if let held = state.usersLock { close(held) }
                state.usersLock = nil
                state.users -= 1
                throw error
            }
        }
    }

    /// `path` opened (created when missing) and flock'ed with `operation`, waiting for it.
    private static func lock(_ path: String, _ operation: Int32) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw HarnessFailure("open \(path): \(String(cString: strerror(errno)))") }
        while flock(descriptor, operation) != 0 {
            guard errno == EINTR else {
                let failure = String(cString: strerror(errno))
                close(descriptor)
                throw HarnessFailure("flock \(path): \(failure)")
            }
        }
        return descriptor
    }

    /// What a unit's sandboxing (mount namespaces) needs from the host, and a machine booted
    /// with systemd has: `/` shared; /run a mount point (else MountAPIVFS=, which ProtectKernelTunables=
    /// and ProtectControlGroups= imply, mounts an empty tmpfs over the service's /run and it
    /// loses the journal's sockets); PID 1's inaccessible nodes in /run/systemd/inaccessible
    /// (what root's manager mounts over hidden paths); /run/systemd/unit-root (where a
    /// namespace is assembled; an unprivileged manager cannot create it). Made only where
    /// missing, and left in place: they change nothing for anything else, and other test
    /// processes may be using them.
    private static func makeSandboxingWork() throws {
        let mounts = FileHandle(forReadingAtPath: "/proc/self/mountinfo").flatMap { try? $0.readToEnd() } ?? Data()
        let runIsMounted = String(decoding: mounts, as: UTF8.self).split(separator: "\n").contains {
            $0.split(separator: " ").dropFirst(4).first == "/run"
        }
        if !runIsMounted { try CommandRunner.shell("mount --bind /run /run") }
        // A systemd host's root is shared (PID 1 makes it so): a mount made after a service
        // started reaches the service's namespace. Without it, every test's later mount
        // would be invisible to a sandboxed daemon, which no user ever sees.
        let rootIsShared = String(decoding: mounts, as: UTF8.self).split(separator: "\n").contains {
            let fields = $0.split(separator: " ")
            return fields.count > 6 && fields[4] == "/" && fields[6...].prefix { $0 != "-" }.contains { $0.hasPrefix("shared:") }
        }
        if !rootIsShared { try CommandRunner.shell("mount --make-rshared /") }
        let inaccessible = "/run/systemd/inaccessible"
        try FileManager.default.createDirectory(atPath: inaccessible, withIntermediateDirectories: true)
        let makers: [(String, (String) -> Int32)] = [
            ("dir", { mkdir($0, 0) }),
            ("reg", { path in
                let descriptor = creat(path, 0)
                if descriptor >= 0 { close(descriptor) }
                return descriptor >= 0 ? 0 : -1
            }),
            ("fifo", { mkfifo($0, 0) }),
            ("chr", { mknod($0, S_IFCHR, 0) }),
            ("blk", { mknod($0, S_IFBLK, 0) }),
            ("sock", makeSocketFile),
        ]
        for (name, make) in makers {
            let path = inaccessible + "/" + name
            var status = stat()
            if lstat(path, &status) != 0 { _ = make(path) }
            chmod(path, 0)
        }
        if !FileManager.default.fileExists(atPath: "/run/systemd/unit-root") {
            try FileManager.default.createDirectory(atPath: "/run/systemd/unit-root", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
    }

    private static func makeSocketFile(_ path: String) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    static func release() {
        state.update { state in
            state.users -= 1
            guard state.users == 0, let held = state.usersLock else { return }
            state.usersLock = nil
            let decision = try? lock(decisionLock, LOCK_EX)
            defer { if let decision { close(decision) } }
            flock(held, LOCK_UN)
            let last = flock(held, LOCK_EX | LOCK_NB) == 0
            close(held)
            // Others still use them: a journald this process started stays up (kept here, so
            // that nothing stops it), and the last process out stops it by its recorded pid.
            guard last, decision != nil else { return }
            let recorded = (try? String(contentsOfFile: journaldPIDFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if let journald = state.journald, journald.pid == recorded || recorded == nil {
                journald.stop()
            } else if let recorded, readProcFile("/proc/\(recorded)/comm")?.hasPrefix("systemd-journal") == true {
                kill(recorded, SIGTERM)
                // Not this process's child: gone, or a zombie its starter will reap.
                _ = waitUntil(seconds: 10) {
                    guard let stat = readProcFile("/proc/\(recorded)/stat") else { return true }
                    return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
                }
            }
            state.journald = nil
            try? FileManager.default.removeItem(atPath: journaldPIDFile)
            if FileManager.default.fileExists(atPath: bootedMarker) {
                try? FileManager.default.removeItem(atPath: "/run/systemd/system")
                try? FileManager.default.removeItem(atPath: bootedMarker)
            }
        }
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass.
@discardableResult
func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
