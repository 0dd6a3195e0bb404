import Foundation

/// A real status bar on a real display, for the bars' own tests (RealBarTests): Xvfb, and
/// in it i3 with i3bar running i3blocks (or i3status and usedspace), or polybar, or sway
/// (as an unprivileged user, which it insists on; X11 backend, so xdotool clicks) running
/// waybar. The bar runs
/// `usedspace` from PATH as its documented configuration says, through a wrapper that
/// copies what `watch` and `status` print to a log, so the test sees what the bar got. The
/// copier ends as soon as the bar stops reading (as `watch` itself does), so that a bar's
/// death reaches the `watch` behind it as it would without the copier.
/// A fake `baobab` on PATH records the right clicks.
final class BarDesktop {
    static var xAvailable: Bool { ["Xvfb", "i3", "xdotool", "import", "python3"].allSatisfy(Prerequisite.hasCommand) }

    let scratch: ScratchDirectory
    let display: String
    let width: Int
    /// HOME of the bar, on a tmpfs of its own: the filesystem a bare `usedspace` shows.
    let home: String
    let runtime: String
    let log: String
    let rightClicks: String
    let environment: [String: String]
    /// The unprivileged user sway runs as, or nil (everything else runs as we do).
    let user: (uid: uid_t, gid: gid_t)?
    private var processes: [SpawnedProcess] = []

    init(_ label: String, width: Int = 1000, height: Int = 60, asUser: Bool = false) throws {
        scratch = try ScratchDirectory(label)
        self.width = width
        var free = 120
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(free)") || FileManager.default.fileExists(atPath: "/tmp/.X\(free)-lock") { free += 1 }
        display = ":\(free)"
        home = try scratch.mountTmpfs(at: "home", options: "size=10m,mode=0777")
        runtime = scratch.subpath("runtime")
        log = scratch.subpath("bar-output.log")
        rightClicks = scratch.subpath("right-clicks")
        if asUser {
            let user = try Self.unprivilegedUser()
            self.user = user
            for path in [home, scratch.path] { chown(path, user.uid, user.gid) }
        } else {
            user = nil
        }
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let bin = scratch.subpath("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try """
            #!/bin/sh
            # usedspace as the bar runs it, its output copied to the test's log.
            case "$1" in
              watch|status) \(CommandRunner.usedspace) "$@" | copy-output \(quoted(log)) ;;
              *) exec \(CommandRunner.usedspace) "$@" ;;
            esac
            """.write(toFile: bin + "/usedspace", atomically: true, encoding: .utf8)
        // tee would outlive a dead bar until its next write, and keep the watch alive with it.
        try """
            #!/usr/bin/python3
            # Copies stdin to stdout and to the log; ends at the end of stdin, or when nobody
            # reads stdout any more (poll says POLLERR), as usedspace watch does.
            import os, select, sys
            log = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
            poller = select.poll()
            poller.register(0, select.POLLIN)
            poller.register(1, 0)
            while True:
                for fd, _ in poller.poll():
                    if fd == 1:
                        sys.exit(0)
                    data = os.read(0, 65536)
                    if not data:
                        sys.exit(0)
                    os.write(log, data)
                    os.write(1, data)
            """.write(toFile: bin + "/copy-output", atomically: true, encoding: .utf8)
        try "#!/bin/sh\necho \"$@\" >> \(quoted(rightClicks))\n".write(toFile: bin + "/baobab", atomically: true, encoding: .utf8)
        for tool in ["usedspace", "copy-output", "baobab"] { chmod(bin + "/" + tool, 0o755) }
        try "".write(toFile: log, atomically: true, encoding: .utf8)
        if let user {
            for path in [runtime, log, bin] { chown(path, user.uid, user.gid) }
        }
        environment = [
            "PATH": bin + ":/usr/bin:/bin", "HOME": home, "DISPLAY": display, "XDG_RUNTIME_DIR": runtime,
            "XDG_CONFIG_HOME": scratch.subpath("config"), "USEDSPACE_SOCKET": scratch.subpath("no-daemon.sock"), "LANG": "C.UTF-8",
        ]
        processes.append(try SpawnedProcess(I3Desktop.path("Xvfb"), [display, "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"],
                                            environment: environment, logFile: scratch.subpath("xvfb.log")))
        guard waitUntil(seconds: 10, { FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(free)") }) else {
            throw HarnessFailure("Xvfb did not start")
        }
    }

    /// Writes a file of the bar's configuration (owned by the bar's user).
    func write(_ text: String, to relative: String) throws -> String {
        let path = scratch.subpath(relative)
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        if let user {
            var current = directory
            while current.hasPrefix(scratch.path) && current != scratch.path {
                chown(current, user.uid, user.gid)
                current = (current as NSString).deletingLastPathComponent
            }
            chown(path, user.uid, user.gid)
        }
        return path
    }

    /// i3, with a bar whose status_command is `command`.
    func startI3(statusCommand command: String?) throws {
        let bar = command.map { "bar {\n  status_command \($0)\n  position top\n  tray_output none\n}\n" } ?? ""
        let config = try write("# i3 config file (v4)\nfont pango:DejaVu Sans Mono 11\n" + bar, to: "i3.config")
        processes.append(try SpawnedProcess(I3Desktop.path("i3"), ["-c", config], environment: environment, logFile: scratch.subpath("i3.log")))
    }

    @discardableResult
    func start(_ executable: String, _ arguments: [String], logName: String) throws -> SpawnedProcess {
        let process = try SpawnedProcess(I3Desktop.path(executable), arguments, environment: environment, logFile: scratch.subpath(logName))
        processes.append(process)
        return process
    }

    /// The running bar (`i3bar`, `waybar`…) of this desktop: its arguments name a file here.
    func barProcess(_ name: String) -> pid_t? {
        ProcessTable.find(name, argumentContaining: scratch.path).first
    }

    /// The control sockets of the bars' `watch` processes, named by their pids.
    var controlSockets: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: runtime + "/usedspace/blocks")) ?? []
    }

    var watchProcesses: [pid_t] { controlSockets.compactMap { pid_t($0.prefix { $0.isNumber }) } }

    /// sway as the unprivileged user, on the X display, running `waybar` from its config.
    func startSway(waybarConfig: String, style: String) throws {
        guard let user else { throw HarnessFailure("sway needs the desktop made with asUser") }
        let waybar = try write(waybarConfig, to: "config/waybar/config")
        let css = try write(style, to: "config/waybar/style.css")
        let sway = try write("output * bg #202020 solid_color\noutput * resolution \(width)x60\nexec waybar -c \(quoted(waybar)) -s \(quoted(css))\n",
                             to: "config/sway/config")
        var arguments = ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--init-groups", "/usr/bin/env"]
        for (key, value) in environment { arguments.append("\(key)=\(value)") }
        arguments += ["WLR_BACKENDS=x11", "WLR_RENDERER=pixman", "WLR_LIBINPUT_NO_DEVICES=1", I3Desktop.path("sway"), "-c", sway]
        processes.append(try SpawnedProcess("/usr/bin/setpriv", arguments, environment: environment, logFile: scratch.subpath("sway.log")))
    }

    var output: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func logText(_ name: String) -> String { (try? String(contentsOfFile: scratch.subpath(name), encoding: .utf8)) ?? "" }

    func click(x: Int, y: Int = 10, button: Int) throws {
        let result = try CommandRunner.run(I3Desktop.path("xdotool"), ["mousemove", String(x), String(y), "click", String(button)],
                                           environment: ["DISPLAY": display])
        guard result.status == 0 else { throw HarnessFailure("xdotool: \(result.stderr)") }
    }

    /// The top `height` rows of the screen, as a PNG at `path`.
    func screenshot(_ path: String, height: Int = 24) throws {
        let result = try CommandRunner.run(I3Desktop.path("import"), ["-window", "root", "-crop", "\(width)x\(height)+0+0", "+repage", path],
                                           environment: ["DISPLAY": display])
        guard result.status == 0 else { throw HarnessFailure("import: \(result.stderr)") }
    }

    /// The top `height` rows of the screen, as pixels.
    func capture(height: Int = 24) throws -> BarScreenshot {
        let shot = scratch.subpath("capture.png")
        try screenshot(shot, height: height)
        return try BarScreenshot(png: shot, width: width, height: height)
    }

    /// How many pixels of the top rows have this colour (e.g. "#FF0000"), from a screenshot.
    func pixels(of color: String, height: Int = 24) throws -> Int {
        let shot = scratch.subpath("count.png")
        try screenshot(shot, height: height)
        let histogram = try CommandRunner.run("/usr/bin/convert", [shot, "-format", "%c", "histogram:info:-"]).stdout
        let hex = color.uppercased()
        return histogram.split(separator: "\n").filter { $0.uppercased().contains(hex) }
            .compactMap { Int($0.trimmingCharacters(in: .whitespaces).prefix { $0 != ":" }) }.reduce(0, +)
    }

    /// Fills the home filesystem (10 MB) to `percent` of its size.
    func fill(toPercent percent: Int) throws {
        let target = home + "/filler"
        try Data(count: 10 * 1024 * 1024 * percent / 100).write(to: URL(fileURLWithPath: target))
    }

    deinit {
        for process in processes.reversed() { process.stop(seconds: 5) }
        // Watches the bars left behind (each has its control socket here).
        for pid in watchProcesses { kill(pid, SIGTERM) }
    }

    static func unprivilegedUser() throws -> (uid: uid_t, gid: gid_t) {
        let name = "usedspace-test"
        if getpwnam(name) == nil {
            try CommandRunner.shell("useradd --create-home --shell /usr/sbin/nologin \(quoted(name))")
        }
        guard let entry = getpwnam(name), entry.pointee.pw_uid != 0 else { throw HarnessFailure("no unprivileged user \(name)") }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }
}
