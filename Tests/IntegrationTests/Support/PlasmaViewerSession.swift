import Foundation
import Testing

/// A real KDE Plasma `plasmoidviewer` on Xvfb (this machine's 5.27, or a GenerationRoot's 6), run as the unprivileged user of a
/// UserServiceDaemon's manager, in that user's session (its environment, mount namespace and
/// session bus), with the widget installed as a user installs it
/// (~/.local/share/plasma/plasmoids/io.github.usedspace) and `usedspace` on its PATH, as
/// `make install` puts it. In a panel's form factor (horizontal, top edge) it shows the
/// compact view; the widget's debug log (its logging category, turned on) says what each
/// view shows. A fake `baobab` on the PATH records what it was asked to open.
final class PlasmaViewerSession {
    static var available: Bool {
        ["plasmoidviewer", "kpackagetool5"].allSatisfy(Prerequisite.hasCommand) && DesktopBuild.available && hostAvailable
    }
    /// What runs on this machine whichever Plasma the viewer is: the X server, the clicks,
    /// the screenshots.
    static var hostAvailable: Bool { ["Xvfb", "import", "xdotool"].allSatisfy(Prerequisite.hasCommand) }
    static let requirement: Comment = "needs plasmoidviewer (plasma-sdk), plasma-desktop, kpackagetool5, Xvfb, xdotool and ImageMagick"

    let manager: SystemdUserManager
    let scratch: ScratchDirectory
    let display: String
    let analyzerCalls: String
    private let logFile: String
    private var processes: [SpawnedProcess] = []
    private(set) var pid: pid_t = 0

    /// `formFactor`: "horizontal" (a panel: the compact view) or "planar" (the desktop: the
    /// full view). `client`: the `usedspace` on the widget's PATH (a stand-in, for what the
    /// real one never prints).
    ///
    /// In a GenerationRoot the widget is the one the package installed (the build for that
    /// release's Plasma), and the client the package's.
    ///
    /// `storeArchive`: the widget installed from that .plasmoid (the KDE Store's form) with the
    /// session's kpackagetool (6, else 5), and no usedspace on the PATH: a store install alone.
    init(session manager: SystemdUserManager, formFactor: String = "horizontal", client: String? = nil, storeArchive: String? = nil) throws {
        let client = client ?? manager.clientPath
        self.manager = manager
        guard let user = manager.user else { throw HarnessFailure("plasmoidviewer runs in an unprivileged user's session") }
        scratch = try ScratchDirectory("plasma")
        chown(scratch.path, user.uid, user.gid)
        analyzerCalls = scratch.subpath("analyzer-calls")
        logFile = scratch.subpath("plasmoidviewer.log")
        for file in [analyzerCalls, logFile] {
            _ = FileManager.default.createFile(atPath: file, contents: nil)
            chown(file, user.uid, user.gid)
        }
        let bin = scratch.subpath("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\necho \"$*\" >> \(quoted(analyzerCalls))\n".write(toFile: bin + "/baobab", atomically: true, encoding: .utf8)
        chmod(bin + "/baobab", 0o755)
        if storeArchive == nil { try FileManager.default.createSymbolicLink(atPath: bin + "/usedspace", withDestinationPath: client) }

        // Installed by the user's own tool, as a user installs a downloaded widget.
        var environment = manager.environment
        environment["PATH"] = bin + ":/usr/bin:/bin"
        let installed = FileManager.default.fileExists(atPath: user.home + "/.local/share/plasma/plasmoids/" + DesktopBuild.plasmoidID)
        if (manager.root == nil || storeArchive != nil) && !installed {
            let tool = try CommandRunner.run(manager.userCommand.executable, manager.userCommand.arguments + ["/bin/sh", "-c", "command -v kpackagetool6 || command -v kpackagetool5"],
                                             environment: environment).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let install = try CommandRunner.run(manager.userCommand.executable,
                                                manager.userCommand.arguments + [tool, "--type", "Plasma/Applet", "--install", try storeArchive ?? DesktopBuild.plasmoid(5)],
                                                environment: environment)
            guard install.status == 0 else { throw HarnessFailure("\(tool) --install: \(install.stdout)\(install.stderr)") }
        }

        var number = 160
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") || FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") { number += 1 }
        display = ":\(number)"
        processes.append(try SpawnedProcess(I3Desktop.path("Xvfb"), [display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                                            environment: [:], logFile: scratch.subpath("xvfb.log")))
        guard waitUntil(seconds: 10, { FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") }) else {
            throw HarnessFailure("Xvfb did not start on \(display)")
        }
        environment["DISPLAY"] = display
        environment["QT_QPA_PLATFORM"] = "xcb"
        environment["QT_LOGGING_RULES"] = "io.github.usedspace.debug=true"
        environment["XDG_CURRENT_DESKTOP"] = "KDE"
        let session = manager.userCommand
        let viewer = try SpawnedProcess(session.executable, session.arguments + ["/usr/bin/plasmoidviewer", "-a", DesktopBuild.plasmoidID,
                                                                            "-f", formFactor, "-l", "topedge", "-s", "800x600"],
                                        environment: environment, logFile: logFile)
        processes.append(viewer)
        pid = viewer.pid
        guard waitUntil(seconds: 60, { !self.lines.isEmpty }) else { throw HarnessFailure("plasmoidviewer showed nothing: \(log.suffix(3000))") }
    }

    /// plasmoidviewer's output so far.
    var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// What the QML engine said of the widget's own files: an error or warning names the file
    /// (…/io.github.usedspace/contents/…). plasmoidviewer's own containment has errors of its
    /// own in some releases (a TypeError in Plasma 6.7's), which are not the widget's.
    var widgetProblems: [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains("/io.github.usedspace/contents/") }
    }

    /// The widget's debug lines, oldest first, without the category's prefix.
    var lines: [String] {
        log.split(separator: "\n").compactMap { line in
            line.range(of: "io.github.usedspace: ").map { String(line[$0.upperBound...]) }
        }
    }

    /// What the compact view shows now: its text, level and mode (fresh, stale, no-daemon…).
    var compact: (text: String, level: String, mode: String)? {
        guard let line = lines.last(where: { $0.hasPrefix("compact: ") }),
              let level = line.range(of: " level: "), let mode = line.range(of: " mode: ") else { return nil }
        return (String(line[line.index(line.startIndex, offsetBy: 9)..<level.lowerBound]),
                String(line[level.upperBound..<mode.lowerBound]), String(line[mode.upperBound...]))
    }

    /// The full view's latest line of details of the filesystem titled `title`:
    /// "Used: 7.34 MB; Free: …".
    func details(_ title: String) -> String? {
        lines.last { $0.hasPrefix("details: \(title) ") }.map { String($0.dropFirst("details: \(title) ".count)) }
    }

    /// The full view's message ("The usedspace daemon is not running…"), or "" when none.
    var message: String? {
        lines.last { $0.hasPrefix("message:") }.map { String($0.dropFirst("message:".count)).trimmingCharacters(in: .whitespaces) }
    }

    /// The usedspace processes the widget's data engine runs now (the long poll).
    var polls: [pid_t] {
        ProcessTable.descendants(of: pid).filter { readProcFile("/proc/\($0)/comm")?.hasPrefix("usedspace") == true }
    }

    /// Clicks the compact view (where its debug log says it is), which opens the full view
    /// as a popup, as a user does in a panel.
    func clickCompact() throws {
        guard let line = lines.last(where: { $0.hasPrefix("compact-at: ") }) else { throw HarnessFailure("the compact view said not where it is") }
        let numbers = line.dropFirst("compact-at: ".count).split(separator: " ").compactMap { Int($0) }
        guard numbers.count == 4 else { throw HarnessFailure("compact-at: \(line)") }
        let x = numbers[0] + numbers[2] / 2, y = numbers[1] + numbers[3] / 2
        let click = try CommandRunner.run(I3Desktop.path("xdotool"), ["mousemove", String(x), String(y), "click", "1"], environment: ["DISPLAY": display])
        guard click.status == 0 else { throw HarnessFailure("xdotool: \(click.stderr)") }
    }

    /// A PNG of the display.
    func screenshot(_ path: String) throws {
        let result = try CommandRunner.run(I3Desktop.path("import"), ["-display", display, "-window", "root", path])
        guard result.status == 0 else { throw HarnessFailure("import: \(result.stderr)") }
    }

    deinit {
        for process in processes.reversed() { process.stop(seconds: 10) }
    }
}
