import Foundation

/// A real `systemd --user` manager (and, when none runs, a real systemd-journald) in a
/// temporary directory, for the tests of the service, its socket activation, notifications,
/// watchdog and journal entries. PID 1 need not be systemd; root is needed to create
/// /run/systemd/system (how systemctl and sd_booted() tell that systemd runs) and to start
/// journald.
final class SystemdUserManager {
    let directory: String
    let environment: [String: String]
    private let manager: SpawnedProcess
    var runtimeDirectory: String { directory + "/runtime" }
    var configDirectory: String { directory + "/config" }
    var stateDirectory: String { directory + "/state" }
    var unitDirectory: String { configDirectory + "/systemd/user" }
    var socketPath: String { runtimeDirectory + "/usedspace.sock" }

    static var available: Bool {
        Prerequisite.isRoot && FileManager.default.isExecutableFile(atPath: "/usr/lib/systemd/systemd")
            && FileManager.default.isExecutableFile(atPath: "/usr/lib/systemd/systemd-journald")
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
        try SharedSystemdPieces.acquire()
        do {
            manager = try SpawnedProcess("/usr/lib/systemd/systemd", ["--user"], environment: environment, logFile: scratch + "/manager.log")
        } catch {
            SharedSystemdPieces.release()
            throw error
        }
        let ready = waitUntil(seconds: 15) { FileManager.default.fileExists(atPath: scratch + "/runtime/systemd/private") }
        guard ready else {
            manager.stop()
            SharedSystemdPieces.release()
            let log = (try? String(contentsOfFile: scratch + "/manager.log", encoding: .utf8)) ?? ""
            throw HarnessFailure("systemd --user did not start: \(log)")
        }
    }

    deinit {
        _ = try? systemctl("exit")
        if !waitUntil(seconds: 10, { !self.manager.isRunning }) { manager.stop() }
        SharedSystemdPieces.release()
        try? FileManager.default.removeItem(atPath: directory)
    }

    @discardableResult
    func systemctl(_ arguments: String...) throws -> CommandResult {
        try CommandRunner.run("/usr/bin/systemctl", ["--user"] + arguments, environment: environment, timeout: 60)
    }

    func property(_ unit: String, _ name: String) throws -> String {
        try systemctl("show", "-p", name, "--value", unit).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Installs the project's unit files with ExecStart pointing at the built daemon, plus
    /// optional drop-in settings for the service (e.g. a short watchdog for a test).
    func installUnits(serviceDropIn: String? = nil) throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("systemd")
        let service = try String(contentsOf: repository.appendingPathComponent("usedspace.service"), encoding: .utf8)
            .replacingOccurrences(of: "@bindir@", with: CommandRunner.productsDirectory.path)
        try service.write(toFile: unitDirectory + "/usedspace.service", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: repository.appendingPathComponent("usedspace.socket").path,
                                         toPath: unitDirectory + "/usedspace.socket")
        if let serviceDropIn {
            try FileManager.default.createDirectory(atPath: unitDirectory + "/usedspace.service.d", withIntermediateDirectories: true)
            try ("[Service]\n" + serviceDropIn + "\n").write(toFile: unitDirectory + "/usedspace.service.d/test.conf", atomically: true, encoding: .utf8)
        }
        let reload = try systemctl("daemon-reload")
        guard reload.status == 0 else { throw HarnessFailure("daemon-reload failed: \(reload.stderr)") }
    }

    func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: configDirectory + "/usedspace", withIntermediateDirectories: true)
        try text.write(toFile: configDirectory + "/usedspace/config", atomically: true, encoding: .utf8)
    }

    /// Runs the client against this manager's socket.
    func usedspace(_ arguments: String...) throws -> CommandResult {
        try CommandRunner.run(CommandRunner.usedspace, arguments, environment: environment)
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

/// /run/systemd/system and journald are machine-wide: the first manager creates or starts
/// them when missing, the last one removes or stops what was created.
enum SharedSystemdPieces {
    private static let state = Locked((users: 0, createdBooted: false, journald: SpawnedProcess?.none))

    static func acquire() throws {
        try state.update { state in
            state.users += 1
            guard state.users == 1 else { return }
            if !FileManager.default.fileExists(atPath: "/run/systemd/system") {
                try FileManager.default.createDirectory(atPath: "/run/systemd/system", withIntermediateDirectories: true)
                state.createdBooted = true
            }
            let running = (try? CommandRunner.run("/usr/bin/pgrep", ["-x", "systemd-journal"]).status) == 0
            if !running {
                try FileManager.default.createDirectory(atPath: "/run/systemd/journal", withIntermediateDirectories: true)
                for socket in ["socket", "stdout", "dev-log"] { try? FileManager.default.removeItem(atPath: "/run/systemd/journal/" + socket) }
                state.journald = try SpawnedProcess("/usr/lib/systemd/systemd-journald", [], environment: [:], logFile: "/dev/null")
                _ = waitUntil(seconds: 10) { FileManager.default.fileExists(atPath: "/run/systemd/journal/stdout") }
            }
        }
    }

    static func release() {
        state.update { state in
            state.users -= 1
            guard state.users == 0 else { return }
            state.journald?.stop()
            state.journald = nil
            if state.createdBooted {
                try? FileManager.default.removeItem(atPath: "/run/systemd/system")
                state.createdBooted = false
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
