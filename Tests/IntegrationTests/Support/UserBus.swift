import Foundation

/// The session bus of a user manager (dbus.socket, as dbus-user-session provides it), as the
/// user's programs reach it: busctl and gdbus run as the user, in the user's session.
struct UserBus {
    let manager: SystemdUserManager

    static let name = "io.github.usedspace.UsedSpace1"
    static let root = "/io/github/usedspace/UsedSpace1"
    static let filesystemInterface = "io.github.usedspace.UsedSpace1.Filesystem"

    static var available: Bool { Prerequisite.hasCommand("busctl") && Prerequisite.hasCommand("gdbus") && Prerequisite.hasCommand("dbus-daemon") }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Starts the bus's socket (the bus itself starts with its first client).
    func start() throws {
        let result = try manager.systemctl("start", "dbus.socket")
        guard result.status == 0 else { throw HarnessFailure("dbus.socket: \(result.stderr)") }
    }

    /// Takes the bus away (dbus-user-session starts it with the manager): a session without one.
    func stop() throws {
        let result = try manager.systemctl("stop", "dbus.socket", "dbus.service")
        guard result.status == 0 else { throw HarnessFailure("stopping dbus: \(result.stderr)") }
    }

    /// Installs the shipped D-Bus activation file where the user's bus finds it
    /// (~/.local/share/dbus-1/services), as a package does in /usr/share/dbus-1/services.
    /// The running bus watches only the directories that existed when it started, so it is
    /// told to read them again (as `dbus-send --session … ReloadConfig` would).
    func installActivationFile() throws {
        let directory = manager.user!.home + "/.local/share/dbus-1/services"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let name = "io.github.usedspace.UsedSpace1.service"
        try FileManager.default.copyItem(atPath: Self.repository.appendingPathComponent("dbus/" + name).path, toPath: directory + "/" + name)
        try manager.giveToUser(manager.user!.home + "/.local")
        let reload = try busctl(["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig"])
        guard reload.status == 0 else { throw HarnessFailure("ReloadConfig: \(reload.stderr)") }
    }

    @discardableResult
    func busctl(_ arguments: [String], timeout: TimeInterval = 30) throws -> CommandResult {
        try manager.runAsUser("/usr/bin/busctl", ["--user"] + arguments, timeout: timeout)
    }

    /// The object of a watched path: systemd's escaping of bus paths (`/` → `_2f`…).
    static func objectPath(of watchedPath: String) -> String {
        root + "/filesystem/" + watchedPath.utf8.map { byte -> String in
            let character = Character(Unicode.Scalar(byte))
            return (byte < 0x80 && (character.isLetter || character.isNumber)) ? String(character) : String(format: "_%02x", byte)
        }.joined()
    }

    /// A property's value (busctl's JSON: strings, numbers, booleans), or nil when the call fails.
    func property(_ object: String, _ name: String, interface: String = UserBus.filesystemInterface,
                  timeout: String = "5") -> Any? {
        guard let result = try? busctl(["--json=short", "--timeout=\(timeout)", "get-property", Self.name, object, interface, name]),
              result.status == 0,
              let json = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else { return nil }
        return json["data"]
    }

    /// Every object's properties, by object path, as GetManagedObjects gives them.
    func managedObjects() throws -> [String: [String: Any]] {
        let result = try busctl(["--json=short", "call", Self.name, Self.root, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"])
        guard result.status == 0 else { throw HarnessFailure("GetManagedObjects: \(result.stderr)") }
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let objects = ((json?["data"] as? [Any])?.first as? [String: Any]) ?? [:]
        var found: [String: [String: Any]] = [:]
        for (path, interfaces) in objects {
            let properties = (interfaces as? [String: Any])?[Self.filesystemInterface] as? [String: Any] ?? [:]
            found[path] = properties.compactMapValues { ($0 as? [String: Any])?["data"] }
        }
        return found
    }
}

/// `busctl monitor` of the daemon's names, as the user: every message to or from them (a
/// name's messages sent to its unique name are matched by that name only), read back as JSON.
final class BusMonitor {
    private let process: SpawnedProcess
    private let logFile: String

    init(_ bus: UserBus, names: [String] = [UserBus.name]) throws {
        logFile = try ScratchDirectory.make("busmonitor") + "/monitor.log"
        let session = bus.manager.userCommand
        process = try SpawnedProcess(session.executable, session.arguments + ["/usr/bin/busctl", "--user", "monitor", "--json=short"] + names,
                                     environment: bus.manager.environment, logFile: logFile)
        guard waitUntil(seconds: 10, { self.log.contains("Monitoring") }) else { throw HarnessFailure("busctl monitor: \(log)") }
    }

    deinit { process.stop(seconds: 2) }

    var pid: pid_t { process.pid }

    private var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// Every message seen so far, oldest first.
    var messages: [[String: Any]] {
        log.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The signals seen so far, oldest first.
    var signals: [[String: Any]] { messages.filter { $0["type"] as? String == "signal" } }

    /// PropertiesChanged of one object: the changed properties' values each.
    func propertiesChanged(at object: String) -> [[String: Any]] {
        signals.filter { $0["path"] as? String == object && $0["member"] as? String == "PropertiesChanged" }.compactMap { signal in
            let data = (signal["payload"] as? [String: Any])?["data"] as? [Any]
            return (data?.dropFirst().first as? [String: Any])?.compactMapValues { ($0 as? [String: Any])?["data"] }
        }
    }

    /// The objects named by InterfacesAdded (or InterfacesRemoved) signals.
    func objects(_ member: String) -> [String] {
        signals.filter { $0["member"] as? String == member }.compactMap { signal in
            ((signal["payload"] as? [String: Any])?["data"] as? [Any])?.first as? String
        }
    }
}
