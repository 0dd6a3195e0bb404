import Foundation

/// usedspaced as users run it: the shipped units installed in a real user manager of an
/// unprivileged user (SystemdUserManager), the socket enabled, and the service started by
/// the first client that connects (socket activation), under the unit's whole sandbox.
/// What the daemon serves is checked here, not on a daemon started by hand.
///
/// `arguments` are the daemon's options, given as a user would in a drop-in
/// (`systemctl --user edit usedspace.service`: ExecStart= emptied and set again): the unit's
/// sandboxing stays as shipped. Paths a test watches must be reachable by the user (the
/// scratch directories are mode 0755).
final class UserServiceDaemon: TestedDaemon {
    let manager: SystemdUserManager
    let user: SystemdUserManager.TestUser
    let log: JournalLog

    static var available: Bool { SystemdUserManager.unprivilegedAvailable }

    /// `config`: the text of ~/.config/usedspace/config. `dropIn`: more [Service] lines
    /// (ReadWritePaths= for a textfile directory, as usedspaced(8) tells users).
    /// `socket: false`: the units installed, the socket not started yet (`startSocket`).
    /// `writersHelper: false`: without the helper's units (usedspace-writers.socket).
    /// `in root`: the daemon and units its package installed in that later Debian.
    init(arguments: [String] = [], config: String? = nil, dropIn: String? = nil, socket: Bool = true, writersHelper: Bool = true,
         in root: GenerationRoot? = nil) throws {
        manager = try SystemdUserManager(asUser: SystemdUserManager.pool, in: root)
        user = manager.user!
        log = try JournalLog(uid: user.uid)
        if let config { try manager.writeConfig(config) }
        var lines: [String] = []
        if !arguments.isEmpty {
            lines += ["ExecStart=", "ExecStart=" + ([manager.daemonPath] + arguments).map(Self.unitQuoted).joined(separator: " ")]
        }
        if let dropIn { lines.append(dropIn) }
        try manager.installUnits(serviceDropIn: lines.isEmpty ? nil : lines.joined(separator: "\n"), writersHelper: writersHelper)
        if socket { try startSocket() }
    }

    /// `systemctl --user start usedspace.socket`: from now on a client starts the daemon.
    func startSocket() throws {
        let socket = try manager.systemctl("start", "usedspace.socket")
        guard socket.status == 0 else { throw HarnessFailure("usedspace.socket: \(socket.stderr)") }
    }

    /// A word of a unit file's command line: quoted, with systemd's specifiers escaped.
    static func unitQuoted(_ word: String) -> String {
        "\"" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "$", with: "$$") + "\""
    }

    var home: String { user.home }
    var socketPath: String { manager.socketPath }
    var stateDirectory: String { manager.stateDirectory + "/usedspace" }
    var configFile: String { manager.configDirectory + "/usedspace/config" }

    /// A connection as the user (the daemon serves no one else).
    func client() throws -> ProtocolClient {
        try ProtocolClient(path: socketPath, as: (user.uid, user.gid))
    }

    /// Connects (which starts the service) until it answers `ping`.
    func waitUntilAnswering(seconds: Double = 20) throws {
        var last = ""
        let answered = waitUntil(seconds: seconds) {
            do {
                return try self.client().request("ping", timeout: 2).lines == ["pong"]
            } catch {
                last = "\(error)"
                return false
            }
        }
        guard answered else { throw HarnessFailure("usedspace.service did not answer: \(last); \(log.text)") }
    }

    /// The client as the user, in the user's session (environment, mount namespace).
    func clientCommand(_ arguments: [String], environment extra: [String: String]) -> ClientCommand {
        let session = manager.userCommand
        var environment = manager.environment
        for (key, value) in extra { environment[key] = value }
        return ClientCommand(executable: session.executable, arguments: session.arguments + [manager.clientPath] + arguments,
                             environment: environment)
    }

    /// Writes `name` into the state directory before the service starts, as a run before
    /// would have left it: the directory made as the unit's ExecStartPre makes it (mode
    /// 0700), everything the user's.
    func writeState(_ name: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        chmod(stateDirectory, 0o700)
        try text.write(toFile: stateDirectory + "/" + name, atomically: true, encoding: .utf8)
        try manager.giveToUser(home + "/.local")
    }

    /// Stops the service and its socket: the user has no daemon (a client samples by itself).
    func stopSocket() throws {
        let result = try manager.systemctl("stop", "usedspace.socket", "usedspace.service")
        guard result.status == 0 else { throw HarnessFailure("systemctl stop: \(result.stderr)") }
    }

    /// The service's main process, while it runs.
    var pid: pid_t? { try? manager.mainPID() }

    var isRunning: Bool { (try? manager.property("usedspace.service", "ActiveState")) == "active" }

    /// `systemctl --user stop`; the daemon's exit status (nil when it did not stop cleanly).
    @discardableResult
    func stop() -> Int32? {
        guard (try? manager.systemctl("stop", "usedspace.service"))?.status == 0 else { return nil }
        guard (try? manager.property("usedspace.service", "Result")) == "success" else { return nil }
        return Int32((try? manager.property("usedspace.service", "ExecMainStatus")) ?? "")
    }

    /// What the manager says of the service (for a failure's message): its state, result and
    /// main process's exit.
    var serviceState: String {
        let properties = ["ActiveState", "SubState", "Result", "ExecMainCode", "ExecMainStatus", "NRestarts"]
        return properties.map { "\($0)=\((try? manager.property("usedspace.service", $0)) ?? "?")" }.joined(separator: " ")
    }

    /// `systemctl --user kill --signal=…` to the main process.
    func signal(_ number: Int32) {
        _ = try? manager.systemctl("kill", "--kill-who=main", "--signal=\(number)", "usedspace.service")
    }

    /// Resident memory in KiB, from /proc.
    var residentKilobytes: Int? {
        guard let pid, let status = readProcFile("/proc/\(pid)/status") else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
    }
}

/// The daemon's journal entries since it was made, as the lines its stderr would have had
/// ("usedspaced: warning: message (key=value …)"): the journal has each metadata field as
/// USEDSPACE_KEY. Read incrementally: after the cursor of the last entry read, which is
/// one of ours (journalctl skips the first entry it finds after a cursor whose own entry
/// the filter leaves out: a cursor of another program's entry lost our first one).
final class JournalLog {
    private let uid: uid_t
    /// When it was made, in µs since the epoch (__REALTIME_TIMESTAMP's unit).
    private let since: UInt64
    private let state: Locked<(cursor: String?, text: String)>

    init(uid: uid_t) throws {
        self.uid = uid
        since = UInt64(Date().timeIntervalSince1970 * 1_000_000)
        state = Locked((nil, ""))
    }

    /// Everything so far.
    var text: String {
        state.update { state in
            var arguments = ["--no-pager", "-o", "json", "_UID=\(uid)", "SYSLOG_IDENTIFIER=usedspaced"]
            if let cursor = state.cursor {
                arguments.append("--after-cursor=" + cursor)
            } else {
                arguments.append("--since=@\(since / 1_000_000)")
            }
            guard let result = try? CommandRunner.run("/usr/bin/journalctl", arguments), result.status == 0 else { return state.text }
            for line in result.stdout.split(separator: "\n") {
                guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let time = (entry["__REALTIME_TIMESTAMP"] as? String).flatMap(UInt64.init), time >= since else { continue }
                if let cursor = entry["__CURSOR"] as? String { state.cursor = cursor }
                state.text += Self.line(entry) + "\n"
            }
            return state.text
        }
    }

    /// The value-holding shape `Locked` gives the stderr of a DaemonProcess.
    var value: String { text }

    static func line(_ entry: [String: Any]) -> String {
        let levels = ["2": "critical", "3": "error", "4": "warning", "5": "notice", "6": "info", "7": "debug"]
        let level = levels[entry["PRIORITY"] as? String ?? ""] ?? "info"
        let message = entry["MESSAGE"] as? String ?? ""
        let fields = entry.compactMap { key, value -> String? in
            // As the stderr handler writes them: a value the message says already is left out.
            guard key.hasPrefix("USEDSPACE_"), let value = value as? String, !message.contains(value) else { return nil }
            return key.dropFirst(10).lowercased() + "=" + value
        }.sorted()
        return "usedspaced: \(level): \(message)" + (fields.isEmpty ? "" : " (" + fields.joined(separator: " ") + ")")
    }
}
