import Foundation
import Testing

/// The GNOME Shell extension on a real GNOME Shell 43 (GnomeShellSession) fed by the real
/// daemon as users run it (UserServiceDaemon: socket-activated in the user's manager, on the
/// user's session bus): a real tmpfs filled across the warning limit changes the label and
/// its colour within 2 s; the menu and the date menu show what `usedspace status --details`
/// says; the daemon stopped is said, restarted is followed; a watched FUSE mount that hangs
/// every call makes the indicator stale while the shell goes on answering its bus at once.
/// With USEDSPACE_SCREENSHOTS=1 the screenshots of docs/desktops.md are taken anew.
@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"),
       Prerequisite.enabled(GnomeShellSession.available, GnomeShellSession.requirement))
struct GnomeShellTests {
    static func screenshot(_ shell: GnomeShellSession, _ name: String, crop: String) throws {
        guard RealBarTests.updateScreenshots else { return }
        let full = shell.scratch.subpath("\(name)-full.png")
        try shell.screenshot(full)
        let target = DocumentationTests.repository.appendingPathComponent("docs/images/\(name).png").path
        try CommandRunner.shell("convert \(quoted(full)) -crop \(crop) +repage \(quoted(target))")
    }

    @Test func theIndicatorFollowsAFillTheDaemonStoppingAndStartingAgain() throws {
        try Self.fillStopAndStart(in: nil)
    }

    /// The fill, the menus, the settings, the daemon stopped and started, in this machine's
    /// shell (`root` nil) or in a later release's.
    static func fillStopAndStart(in root: GenerationRoot?) throws {
        let scratch = try ScratchDirectory("gnome-fill")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=10m,mode=0777")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "100ms"],
                                           config: "[bar]\nwarn = 50%\ncritical = 90%\n\n[filesystem \(mount)]\nlabel = \"scratch \"\n", in: root)
        try daemon.waitUntilAnswering()
        let shell = try GnomeShellSession(session: daemon.manager)
        #expect(try shell.extensionState() == "ENABLED", "\(shell.log.suffix(2000))")
        func indicator() -> GnomeIndicator? { (try? shell.indicator()) ?? nil }
        let percent = { try ClientSays.status(daemon, mount, "scratch {percent}%") }

        let before = try percent()
        #expect(waitUntil(seconds: 5) { indicator()?.text == before }, "\(String(describing: indicator())), the client says \(before)")
        #expect(indicator()?.styleClasses.isSuperset(of: ["usedspace-normal", "usedspace-fresh"]) == true, "\(String(describing: indicator()))")

        // Across the warning limit: the label and its colour within 2 s.
        try Data(count: 7 << 20).write(to: URL(fileURLWithPath: mount + "/fill"))
        let changed = waitUntil(seconds: 2) { indicator()?.styleClasses.contains("usedspace-warning") == true }
        #expect(changed, "not within 2 s of the fill: \(String(describing: indicator()))")
        // Once the daemon has sampled the whole write (df's Used): a write caught under way
        // is a publish of its own.
        let written = try DiskFree.of(mount).usedBytes
        #expect(waitUntil(seconds: 5) { (try? ClientSays.status(daemon, mount, "{used:bytes}")) == "\(written)" })
        let after = try percent()
        #expect(waitUntil(seconds: 1) { indicator()?.text == after }, "\(String(describing: indicator())), the client says \(after)")
        #expect(after != before)
        #expect(indicator()?.color == "#f6d32d", "the stylesheet's warning colour: \(String(describing: indicator()))")
        // As drawn: the bar's filled part and the label in that colour, in the top bar.
        let shot = shell.scratch.subpath("warning.png")
        try shell.screenshot(shot)
        let pixels = try BarScreenshot(png: shot, width: 1280, height: 800)
        let warning = pixels.histogram(columns: 0..<1280, rows: 0..<32)[Color(hex: "#f6d32d")!] ?? 0
        #expect(warning > 150, "\(warning) pixels of the warning colour in the top bar")

        // The menu: Used, Free and Total as `usedspace status --details` says them.
        let menu = try shell.openMenu()
        let details = try ClientSays.details(daemon, mount)
        #expect(details.count == 3, "\(details)")
        for line in details { #expect(ClientSays.shows(menu, line[0], line[1]), "\(line) in \(menu)") }
        #expect(menu.contains("scratch") && menu.contains(after.replacingOccurrences(of: "scratch ", with: "")), "\(menu)")
        try Self.screenshot(shell, shell.major == 43 ? "gnome-menu" : "gnome-\(shell.major)-menu", crop: "500x360+780+0")
        try shell.activateMenuItem("Open Disk Usage Analyzer")
        #expect(waitUntil(seconds: 5) {
            (try? String(contentsOfFile: shell.analyzerCalls, encoding: .utf8)) == mount + "\n"
        }, "baobab was asked for: \((try? String(contentsOfFile: shell.analyzerCalls, encoding: .utf8)) ?? "")")
        try shell.closeMenus()
        // The configured command instead (a stand-in): run by /bin/sh with the filesystem's
        // path and mount point in its environment.
        let configured = shell.scratch.subpath("configured-calls")
        try shell.setSetting("analyzer-command", "'echo \"$USEDSPACE_PATH $USEDSPACE_MOUNTPOINT\" >> \(configured)'")
        _ = try shell.openMenu()
        try shell.activateMenuItem("Open Disk Usage Analyzer")
        #expect(waitUntil(seconds: 5) {
            (try? String(contentsOfFile: configured, encoding: .utf8)) == "\(mount) \(mount)\n"
        }, "the configured command wrote: \((try? String(contentsOfFile: configured, encoding: .utf8)) ?? "nothing")")
        try shell.closeMenus()
        try shell.setSetting("analyzer-command", "''")

        // The date menu's section, and the setting that takes it away.
        let free = try ClientSays.status(daemon, mount, "{free} free of {total}")
        let section = try shell.openDateMenu()
        #expect(section.first == "Used Space" && section.contains("scratch") && section.contains(free), "\(section)")
        try Self.screenshot(shell, shell.major == 43 ? "gnome-date-menu" : "gnome-\(shell.major)-date-menu", crop: "740x560+270+0")
        try shell.closeMenus()
        try shell.setSetting("show-in-date-menu", "false")
        #expect(waitUntil(seconds: 5) { (try? shell.openDateMenu()) == [] })
        try shell.closeMenus()
        try shell.setSetting("show-in-date-menu", "true")
        #expect(waitUntil(seconds: 5) { (try? shell.openDateMenu())?.contains(free) == true })
        try shell.closeMenus()

        // The daemon stopped: said at once; started again (by a client, through its socket):
        // followed again.
        #expect(daemon.stop() == 0)
        #expect(waitUntil(seconds: 2) { indicator()?.text == "no daemon" }, "\(String(describing: indicator()))")
        #expect(indicator()?.styleClasses.contains("usedspace-no-daemon") == true)
        #expect(try shell.openMenu().contains("The usedspace daemon is not running."))
        try shell.closeMenus()
        try daemon.waitUntilAnswering()
        #expect(waitUntil(seconds: 2) { indicator()?.text == after }, "\(String(describing: indicator()))")
        #expect(indicator()?.styleClasses.contains("usedspace-warning") == true)
        #expect(try shell.extensionState() == "ENABLED")
        #expect(!shell.log.contains("JS ERROR"), "\(shell.log.suffix(3000))")
    }

    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, python3-fusepy and fusermount3"))
    func aHungMountMakesTheIndicatorStaleWhileTheShellAnswersItsBusAtOnce() throws {
        try Self.hungMount(in: nil)
    }

    static func hungMount(in root: GenerationRoot?) throws {
        let hanging = try HangingMount()
        let daemon = try UserServiceDaemon(arguments: ["--path", hanging.mountPoint, "--interval", "100ms", "--timeout", "1s"],
                                           config: "[filesystem \(hanging.mountPoint)]\nlabel = \"remote \"\n", in: root)
        try daemon.waitUntilAnswering()
        let shell = try GnomeShellSession(session: daemon.manager)
        func indicator() -> GnomeIndicator? { (try? shell.indicator()) ?? nil }
        #expect(waitUntil(seconds: 10) { indicator()?.styleClasses.contains("usedspace-fresh") == true }, "\(String(describing: indicator()))")

        // The shell's own pace first, the mount answering, with the same work asked of it
        // (the indicator read, the menu opened and closed): a shell that renders in software
        // takes a while over a menu whatever the mounts do (GNOME 51 here, up to 0.3 s).
        let calm = try shell.startLatencyProbe(seconds: 6)
        _ = indicator()
        _ = try shell.openMenu()
        try shell.closeMenus()
        let before = try calm.result()
        let probe = try shell.startLatencyProbe(seconds: 6)
        hanging.hang()
        #expect(waitUntil(seconds: 5) { indicator()?.text.hasSuffix("% (stale)") == true }, "\(String(describing: indicator()))")
        #expect(indicator()?.styleClasses.contains("usedspace-stale") == true)
        let menu = try shell.openMenu()
        #expect(menu.contains("Stale"), "\(menu)")
        try shell.closeMenus()
        let latency = try probe.result()
        #expect(latency.calls >= 30, "\(latency)")
        // Frozen, it would answer after the hang (6 s); slowed, slower than it answers anyway.
        #expect(latency.worstMilliseconds < max(100, 2 * before.worstMilliseconds),
                "the shell's own D-Bus methods took up to \(latency.worstMilliseconds) ms while the mount hung, \(before.worstMilliseconds) ms before")
        print("GNOME Shell \(shell.major) answered \(latency.calls) calls while the watched mount hung, the slowest in "
              + "\(String(format: "%.1f", latency.worstMilliseconds)) ms (\(String(format: "%.1f", before.worstMilliseconds)) ms before it hung)")
        hanging.release()
        #expect(waitUntil(seconds: 10) { indicator()?.styleClasses.contains("usedspace-fresh") == true }, "\(String(describing: indicator()))")
        #expect(!shell.log.contains("JS ERROR"), "\(shell.log.suffix(3000))")
    }
}

/// The same in the GNOME Shell of each later Debian release (GenerationRoot): 48 in Debian 13,
/// 51 in sid, with the extension the package installed there (the build for 45 and later).
@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(GenerationRoot.available, GenerationRoot.requirement),
       Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct GnomeShellGenerationTests {
    @Test(arguments: GenerationRoot.Release.allCases)
    func theIndicatorFollowsAFillTheDaemonStoppingAndStartingAgain(_ release: GenerationRoot.Release) throws {
        try GnomeShellTests.fillStopAndStart(in: try GenerationRoot(release))
    }

    @Test(Prerequisite.enabled(HangingMount.available, "needs root, /dev/fuse, python3-fusepy and fusermount3"),
          arguments: GenerationRoot.Release.allCases)
    func aHungMountMakesTheIndicatorStaleWhileTheShellAnswersItsBusAtOnce(_ release: GenerationRoot.Release) throws {
        try GnomeShellTests.hungMount(in: try GenerationRoot(release))
    }
}
