import Foundation
import Testing

/// The extension and the widget as a user gets them from a store alone (`make dist`'s
/// archives), installed the way each desktop installs a download (`gnome-extensions install`,
/// kpackagetool), where usedspace itself is not installed: each says in one line what to
/// install and enable, never shows a blank, never a JS or QML error. In this machine's GNOME
/// Shell 43 and Plasma 5.27 (StoreInstallTests), and in each later release's
/// (StoreInstallGenerationTests).
@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(SystemdUserManager.unprivilegedAvailable, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct StoreInstallTests {
    /// The words that say what to do, wherever the line is shown.
    static func saysWhatToInstall(_ text: String?) -> Bool {
        guard let text else { return false }
        return text.contains("not installed") && text.contains("systemctl --user enable --now usedspace.socket")
    }

    static func gnomeShell(in root: GenerationRoot?) throws {
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool, in: root)
        let shell = try GnomeShellSession(session: manager, storeArchive: try StoreArchiveTests.archive("gnome-shell-\(root == nil ? 43 : 45).zip"))
        #expect(try shell.extensionState() == "ENABLED", "\(shell.log.suffix(2000))")
        func indicator() -> GnomeIndicator? { (try? shell.indicator()) ?? nil }
        #expect(waitUntil(seconds: 10) { indicator()?.text == "not installed" }, "\(String(describing: indicator()))")
        #expect(indicator()?.styleClasses.contains("usedspace-no-daemon") == true, "\(String(describing: indicator()))")
        let menu = try shell.openMenu()
        #expect(menu.contains(where: Self.saysWhatToInstall), "\(menu)")
        #expect(!menu.contains("Start the Daemon"), "\(menu)")
        try shell.closeMenus()
        let section = try shell.openDateMenu()
        #expect(section.first == "Used Space" && section.contains(where: Self.saysWhatToInstall), "\(section)")
        try shell.closeMenus()
        #expect(!shell.log.contains("JS ERROR"), "\(shell.log.suffix(3000))")
        print("GNOME Shell \(shell.major), the extension from its store archive alone: \(menu.first(where: Self.saysWhatToInstall) ?? "?")")
    }

    static func plasma(in root: GenerationRoot?) throws {
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool, in: root)
        let archive = try StoreArchiveTests.archive("plasma-\(root == nil ? 5 : 6).plasmoid")
        for formFactor in ["horizontal", "planar"] {
            let viewer = try PlasmaViewerSession(session: manager, formFactor: formFactor, storeArchive: archive)
            if formFactor == "horizontal" {
                #expect(waitUntil(seconds: 10) { viewer.compact?.text == "not installed" }, "\(String(describing: viewer.compact))")
                #expect(viewer.compact?.mode == "no-daemon", "\(String(describing: viewer.compact))")
            } else {
                #expect(waitUntil(seconds: 10) { Self.saysWhatToInstall(viewer.message) }, "\(String(describing: viewer.message))")
                print("Plasma, the widget from its store archive alone: \(viewer.message ?? "?")")
            }
            #expect(viewer.widgetProblems.isEmpty, "\(viewer.widgetProblems)")
        }
    }

    @Test(Prerequisite.enabled(GnomeShellSession.available, GnomeShellSession.requirement))
    func gnomeShellSaysWhatToInstall() throws { try Self.gnomeShell(in: nil) }

    @Test(Prerequisite.enabled(PlasmaViewerSession.available, PlasmaViewerSession.requirement))
    func plasmaSaysWhatToInstall() throws { try Self.plasma(in: nil) }
}

@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(GenerationRoot.available && PlasmaViewerSession.hostAvailable,
                            "needs root, mmdebstrap and the Debian archive (Tests/Roots/make-root), nsenter, the package (USEDSPACE_DEB), and Xvfb, xdotool, ImageMagick"),
       Prerequisite.enabled(SystemdUserManager.unprivilegedAvailable, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct StoreInstallGenerationTests {
    @Test(arguments: GenerationRoot.Release.allCases)
    func gnomeShellSaysWhatToInstall(_ release: GenerationRoot.Release) throws {
        try StoreInstallTests.gnomeShell(in: try GenerationRoot(release, package: false))
    }

    @Test(arguments: GenerationRoot.Release.allCases)
    func plasmaSaysWhatToInstall(_ release: GenerationRoot.Release) throws {
        try StoreInstallTests.plasma(in: try GenerationRoot(release, package: false))
    }
}
