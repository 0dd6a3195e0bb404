import Foundation
import Testing

/// The GNOME Shell extension given what the real daemon never sends (a stand-in on the
/// session bus, FakeDaemonBus): a property of the wrong type, one left out, a state the
/// contract does not name. Each is an error the indicator and its menu say, never a broken
/// indicator; a well-formed publish afterwards is shown again. The normal paths are tested
/// with the real daemon (GnomeShellTests).
@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(SystemdUserManager.unprivilegedAvailable, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"),
       Prerequisite.enabled(GnomeShellSession.available, GnomeShellSession.requirement))
struct GnomeShellMalformedTests {
    @Test func malformedPropertiesAreShownAsErrorsAndAWellFormedPublishRecovers() throws {
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        let home = manager.user!.home
        let scratch = try ScratchDirectory("gnome-fake")
        let path = FakeDaemonBus.objectPath(home)
        var good = FakeDaemonBus.filesystem(path: home, used: 352_000_000, free: 648_000_000)
        let fake = try FakeDaemonBus(session: manager, scratch: scratch, objects: [path: good])
        let shell = try GnomeShellSession(session: manager)
        #expect(try shell.extensionState() == "ENABLED", "\(shell.log.suffix(2000))")
        #expect(waitUntil(seconds: 5) { (try? shell.indicator())??.text == "35.2%" }, "\(String(describing: try? shell.indicator()))")

        var cases: [(FakeDaemonBus.Properties, String)] = []
        var wrongType = good
        wrongType["UsedBytes"] = ("s", "many")
        cases.append((wrongType, "the daemon sent UsedBytes as 's', not 't'"))
        var missing = good
        missing["Seq"] = nil
        cases.append((missing, "the daemon sent no Seq"))
        var unknown = good
        unknown["State"] = ("s", "melting")
        cases.append((unknown, "the daemon sent an unknown State 'melting'"))
        var unknownQuota = good
        unknownQuota["QuotaKind"] = ("s", "moral")
        cases.append((unknownQuota, "the daemon sent an unknown QuotaKind 'moral'"))
        for (properties, said) in cases {
            // Each malformed object comes as a new one (InterfacesAdded), as after a restart.
            try fake.publish([:])
            #expect(waitUntil(seconds: 5) { (try? shell.indicator())??.text == "–" }, "\(String(describing: try? shell.indicator()))")
            try fake.publish([path: properties])
            #expect(waitUntil(seconds: 5) { (try? shell.indicator())??.text == "error" }, "\(said): \(String(describing: try? shell.indicator()))")
            let indicator = try #require(try shell.indicator())
            #expect(indicator.styleClasses.contains("usedspace-error") && indicator.styleClasses.contains("usedspace-critical"))
            let menu = try shell.openMenu()
            #expect(menu.contains(said) && menu.contains("Home"), "\(menu)")
            try shell.closeMenus()
            try fake.publish([path: good])
            #expect(waitUntil(seconds: 5) { (try? shell.indicator())??.text == "35.2%" }, "\(String(describing: try? shell.indicator()))")
        }
        good["UsedBytes"] = ("t", UInt64(900_000_000))
        good["FreeBytes"] = ("t", UInt64(100_000_000))
        good["Severity"] = ("s", "critical")
        try fake.publish([path: good])
        #expect(waitUntil(seconds: 5) { (try? shell.indicator())??.text == "90.0%" })
        #expect(try shell.indicator()?.styleClasses.contains("usedspace-critical") == true)

        // A quota that leaves less room (well-formed, but the stand-in's: main's
        // QuotaServiceTests have the daemon's on a real btrfs qgroup): the bar follows it.
        good["QuotaKind"] = ("s", "btrfs-referenced")
        good["QuotaUsedBytes"] = ("t", UInt64(45_000_000))
        good["QuotaLimitBytes"] = ("t", UInt64(50_000_000))
        try fake.publish([path: good])
        #expect(waitUntil(seconds: 5) { (try? shell.indicator())??.text == "90.0% (quota)" }, "\(String(describing: try? shell.indicator()))")
        let menu = try shell.openMenu()
        #expect(ClientSays.shows(menu, "Quota", "45 MB of 50 MB (btrfs-referenced)") && ClientSays.shows(menu, "Used", "900 MB"), "\(menu)")
        try shell.closeMenus()
        #expect(try shell.extensionState() == "ENABLED")
        #expect(!shell.log.contains("JS ERROR"), "\(shell.log.suffix(3000))")
    }
}
