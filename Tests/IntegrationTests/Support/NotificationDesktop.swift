import Foundation

/// A real notification server (dunst, under Xvfb) on a real session bus, torn down in
/// reverse. Either a bus of its own, run by root (`init()`), or the session bus of a user
/// manager (`init(session:)`): there, as on a desktop, dbus.socket starts the bus and the
/// first notification starts dunst through D-Bus activation (dunst.service) with the
/// DISPLAY the session was given.
final class NotificationDesktop {
    static var available: Bool {
        ["dbus-daemon", "dunst", "dunstctl", "dbus-send", "Xvfb"].allSatisfy(Prerequisite.hasCommand)
    }

    let directory: String
    let busAddress: String
    private var processes: [SpawnedProcess] = []
    /// Runs a program on the bus (as the session's user, for a user manager's).
    private let run: (_ executable: String, _ arguments: [String]) throws -> CommandResult

    init() throws {
        directory = try ScratchDirectory.make("notify")
        let busAddress = "unix:path=\(directory)/bus"
        self.busAddress = busAddress
        run = { executable, arguments in
            try CommandRunner.run(executable, arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": busAddress])
        }
        let display = try startDisplay()
        processes.append(try SpawnedProcess(I3Desktop.path("dbus-daemon"), ["--session", "--nofork", "--address=\(busAddress)"],
                                            environment: [:], logFile: directory + "/dbus.log"))
        guard waitUntil(seconds: 10, { FileManager.default.fileExists(atPath: "\(self.directory)/bus") }) else {
            throw HarnessFailure("no session bus")
        }
        processes.append(try SpawnedProcess(I3Desktop.path("dunst"), [], environment: [
            "DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": busAddress, "HOME": directory, "XDG_CONFIG_HOME": directory + "/config",
        ], logFile: directory + "/dunst.log"))
        guard waitUntil(seconds: 10, { (try? self.dunstctl("count", "displayed"))?.status == 0 }) else {
            throw HarnessFailure("dunst did not come up: \((try? String(contentsOfFile: directory + "/dunst.log", encoding: .utf8)) ?? "")")
        }
    }

    /// The notification server of `manager`'s session (an unprivileged user's).
    init(session manager: SystemdUserManager) throws {
        directory = try ScratchDirectory.make("notify")
        busAddress = manager.environment["DBUS_SESSION_BUS_ADDRESS"] ?? ""
        run = { executable, arguments in try manager.runAsUser(executable, arguments) }
        let display = try startDisplay()
        let environment = try manager.systemctl("set-environment", "DISPLAY=\(display)")
        guard environment.status == 0 else { throw HarnessFailure("set-environment: \(environment.stderr)") }
        let bus = try manager.systemctl("start", "dbus.socket")
        guard bus.status == 0 else { throw HarnessFailure("dbus.socket: \(bus.stderr)") }
    }

    /// Xvfb on a free display; returns its name.
    private func startDisplay() throws -> String {
        var display = 150
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(display)") { display += 1 }
        processes.append(try SpawnedProcess(I3Desktop.path("Xvfb"), [":\(display)", "-screen", "0", "800x600x24", "-nolisten", "tcp"],
                                            environment: [:], logFile: directory + "/xvfb.log"))
        guard waitUntil(seconds: 10, { FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(display)") }) else {
            throw HarnessFailure("no X server")
        }
        return ":\(display)"
    }

    func dunstctl(_ arguments: String...) throws -> CommandResult {
        try run(I3Desktop.path("dunstctl"), arguments)
    }

    var displayed: Int { Int((try? dunstctl("count", "displayed").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "") ?? -1 }

    /// Summaries and bodies of what dunst has shown (closing what is displayed first).
    func shown() throws -> [(summary: String, body: String)] {
        _ = try dunstctl("close-all")
        // Taken off the screen, into the history.
        _ = waitUntil(seconds: 5) { self.displayed == 0 }
        return try history()
    }

    /// Summaries and bodies of what dunst has taken off the screen: closed by their sender or
    /// by `close-all` (usedspace's never expire).
    func history() throws -> [(summary: String, body: String)] {
        let history = try JSONSerialization.jsonObject(with: Data(try dunstctl("history").stdout.utf8)) as? [String: Any]
        let entries = ((history?["data"] as? [[Any]])?.first as? [[String: Any]]) ?? []
        return entries.map {
            (((($0["summary"] as? [String: Any])?["data"]) as? String) ?? "", ((($0["body"] as? [String: Any])?["data"]) as? String) ?? "")
        }
    }

    func sendAction(_ key: String, id: UInt32) throws {
        let result = try run(I3Desktop.path("dbus-send"), [
            "--session", "--type=signal", "/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked",
            "uint32:\(id)", "string:\(key)",
        ])
        guard result.status == 0 else { throw HarnessFailure("dbus-send: \(result.stderr)") }
    }

    deinit {
        for process in processes.reversed() { process.stop(seconds: 5) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
