import Foundation
import Testing

/// A real GNOME Shell in a user's real session: headless Wayland with a virtual monitor,
/// run as the unprivileged user of a UserServiceDaemon's manager, in that manager's mount
/// namespace and on its session bus, where the daemon is: this machine's GNOME Shell 43, or,
/// in a GenerationRoot, that release's. The extension is installed as a user installs it
/// (~/.local/share/gnome-shell/extensions, the build for the shell's version), or in a root
/// as the package installed it there; it is enabled in dconf, with the test hooks beside it
/// (Tests/Fixtures/gnome-shell, gnome-shell-45 for 45 and later): unsafe mode, so that
/// org.gnome.Shell.Eval reads what the extension shows, and no Overview at start. A private
/// stand-in system bus keeps the shell alive where /run/systemd/seats exists and no system
/// bus runs. A fake `baobab` on the shell's PATH records what it was asked to open.
final class GnomeShellSession {
    static var available: Bool {
        ["gnome-shell", "gsettings", "convert"].allSatisfy(Prerequisite.hasCommand) && UserBus.available
            && DesktopBuild.available && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gi")
    }
    static let requirement: Comment = "needs gnome-shell 43, dbus-daemon, gsettings and gdbus (libglib2.0-bin), busctl, ImageMagick and python3-gi"

    let manager: SystemdUserManager
    let scratch: ScratchDirectory
    /// The arguments each `baobab` started by the extension got, a line each.
    let analyzerCalls: String
    private var processes: [SpawnedProcess] = []
    private let environment: [String: String]

    /// `settings`: keys of org.gnome.shell.extensions.usedspace set before the shell starts
    /// (gsettings syntax: "false", "'a command'").
    /// `storeArchive`: the extension installed from that zip (extensions.gnome.org's form)
    /// with `gnome-extensions install`, as a user installs a download, instead.
    init(session manager: SystemdUserManager, settings: [String: String] = [:], storeArchive: String? = nil) throws {
        self.manager = manager
        guard let user = manager.user else { throw HarnessFailure("GNOME Shell runs in an unprivileged user's session") }
        scratch = try ScratchDirectory("gnome-shell")
        analyzerCalls = scratch.subpath("analyzer-calls")
        let bin = scratch.subpath("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\necho \"$*\" >> \(quoted(analyzerCalls))\n".write(toFile: bin + "/baobab", atomically: true, encoding: .utf8)
        chmod(bin + "/baobab", 0o755)
        _ = FileManager.default.createFile(atPath: analyzerCalls, contents: nil)
        chown(scratch.path, user.uid, user.gid)
        chown(analyzerCalls, user.uid, user.gid)

        let version = try CommandRunner.run(manager.userCommand.executable, manager.userCommand.arguments + ["/usr/bin/gnome-shell", "--version"],
                                            environment: manager.environment).stdout
        guard let major = Int(version.split(separator: " ").dropFirst(2).first?.split(separator: ".").first ?? "") else {
            throw HarnessFailure("gnome-shell --version: \(version)")
        }
        self.major = major
        let extensions = user.home + "/.local/share/gnome-shell/extensions"
        try FileManager.default.createDirectory(atPath: extensions, withIntermediateDirectories: true)
        if manager.root == nil && storeArchive == nil {
            try FileManager.default.copyItem(atPath: try DesktopBuild.gnomeExtension(major >= 45 ? 45 : 43),
                                             toPath: extensions + "/" + DesktopBuild.extensionUUID)
        }
        let hooks = major >= 45 ? Self.hooks45 : Self.hooks
        try FileManager.default.copyItem(atPath: hooks, toPath: extensions + "/" + (hooks as NSString).lastPathComponent)
        _ = FileManager.default.createFile(atPath: user.home + "/.local/share/gnome-shell/lock-warning-shown", contents: nil)
        try manager.giveToUser(user.home + "/.local")

        var environment = manager.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=" + scratch.subpath("system-bus")
        environment["PATH"] = bin + ":/usr/bin:/bin"
        environment["XDG_SESSION_TYPE"] = "wayland"
        environment["XDG_CURRENT_DESKTOP"] = "GNOME"
        self.environment = environment

        if let storeArchive {
            let installed = try asUser("/usr/bin/gnome-extensions", ["install", "--force", storeArchive])
            guard installed.status == 0 else { throw HarnessFailure("gnome-extensions install: \(installed.stdout)\(installed.stderr)") }
        }
        try UserBus(manager: manager).start()
        processes.append(try spawnAsUser("/usr/bin/dbus-daemon", ["--session", "--nofork", "--address=" + environment["DBUS_SYSTEM_BUS_ADDRESS"]!],
                                   log: "system-bus.log"))
        guard waitUntil(seconds: 10, { FileManager.default.fileExists(atPath: self.scratch.subpath("system-bus")) }) else {
            throw HarnessFailure("no stand-in system bus")
        }
        try gsettings(["set", "org.gnome.shell", "enabled-extensions", "['\(DesktopBuild.extensionUUID)', 'test-hooks@usedspace.test']"])
        try gsettings(["set", "org.gnome.shell", "welcome-dialog-last-shown-version", "'999'"])
        for (key, value) in settings { try setSetting(key, value) }
        let shell = try spawnAsUser("/usr/bin/gnome-shell", ["--headless", "--wayland", "--no-x11", "--virtual-monitor", "1280x800"],
                                    log: "gnome-shell.log")
        processes.append(shell)
        pid = shell.pid
        let ready = waitUntil(seconds: 90) { (try? self.eval("global.context.unsafe_mode && !Main.layoutManager._startingUp")) == "true" }
        guard ready else { throw HarnessFailure("gnome-shell did not come up: \(log.suffix(3000))") }
    }

    static let hooks = DesktopBuild.repository.path + "/Tests/Fixtures/gnome-shell/test-hooks@usedspace.test"
    static let hooks45 = DesktopBuild.repository.path + "/Tests/Fixtures/gnome-shell-45/test-hooks@usedspace.test"

    /// The shell's major version (43, 48, 51…).
    let major: Int

    /// A long-running program as the session's user, its output in `log` in the scratch directory.
    func spawnAsUser(_ executable: String, _ arguments: [String], log: String) throws -> SpawnedProcess {
        let user = manager.userCommand
        let path = scratch.subpath(log)
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return try SpawnedProcess(user.executable, user.arguments + [executable] + arguments, environment: environment, logFile: path)
    }

    private func gsettings(_ arguments: [String]) throws {
        let result = try asUser("/usr/bin/gsettings", arguments)
        guard result.status == 0 else { throw HarnessFailure("gsettings \(arguments): \(result.stderr)") }
    }

    /// A program run as the session's user, on its buses.
    func asUser(_ executable: String, _ arguments: [String], timeout: TimeInterval = 30) throws -> CommandResult {
        let user = manager.userCommand
        return try CommandRunner.run(user.executable, user.arguments + [executable] + arguments, environment: environment, timeout: timeout)
    }

    /// The gnome-shell process (nsenter and setpriv exec it).
    private(set) var pid: pid_t = 0

    /// The shell's log so far.
    var log: String { (try? String(contentsOfFile: scratch.subpath("gnome-shell.log"), encoding: .utf8)) ?? "" }

    /// org.gnome.Shell.Eval of `code` (an expression): its value as JSON text.
    func eval(_ code: String) throws -> String {
        let result = try asUser("/usr/bin/busctl", ["--user", "--json=short", "call", "org.gnome.Shell", "/org/gnome/Shell",
                                                    "org.gnome.Shell", "Eval", "s", code])
        guard result.status == 0,
              let reply = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
              let data = reply["data"] as? [Any], data.count == 2, let ok = data[0] as? Bool, let value = data[1] as? String
        else { throw HarnessFailure("Eval: \(result.stdout)\(result.stderr)") }
        guard ok else { throw HarnessFailure("Eval of \(code) threw: \(value)") }
        return value
    }

    /// Eval's value decoded from JSON.
    func evalJSON(_ code: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(try eval(code).utf8), options: [.fragmentsAllowed])
    }

    /// The extension's state as the shell's extension manager has it (ENABLED, ERROR…), and
    /// its error when it has one. GNOME 46 renamed ENABLED and DISABLED to ACTIVE and
    /// INACTIVE: said with 43's names on every version (Eval sees shellDBus.js's
    /// ExtensionUtils, whichever module system the shell has).
    func extensionState() throws -> String {
        try evalJSON("""
            (() => { const e = Main.extensionManager.lookup('\(DesktopBuild.extensionUUID)');
              if (!e) return 'missing';
              const states = ExtensionUtils.ExtensionState; const found = Object.keys(states).find(n => states[n] === e.state);
              const name = {ACTIVE: 'ENABLED', INACTIVE: 'DISABLED'}[found] ?? found;
              return e.error ? `${name}: ${e.error}` : name; })()
            """) as? String ?? "?"
    }

    /// A PNG of the whole screen, through org.gnome.Shell.Screenshot (allowed in unsafe mode).
    func screenshot(_ path: String) throws {
        let shot = scratch.subpath("screenshot.png")
        try? FileManager.default.removeItem(atPath: shot)
        let result = try asUser("/usr/bin/busctl", ["--user", "call", "org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot",
                                                    "org.gnome.Shell.Screenshot", "Screenshot", "bbs", "false", "false", shot])
        guard result.status == 0, FileManager.default.fileExists(atPath: shot) else { throw HarnessFailure("Screenshot: \(result.stderr)") }
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: shot, toPath: path)
    }

    deinit {
        for process in processes.reversed() { process.stop(seconds: 10) }
    }
}
