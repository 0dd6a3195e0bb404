import Foundation
import Testing

/// The package on the later Debian releases its users run (GenerationRoot): installed by apt,
/// the daemon socket-activated by that release's systemd in an unprivileged user's manager,
/// under the shipped unit, answers with df's numbers; the desktop front-ends the package
/// chose for that release's GNOME Shell and Plasma are the ones installed.
@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(GenerationRoot.available, GenerationRoot.requirement),
       Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct GenerationPackageTests {
    @Test(arguments: GenerationRoot.Release.allCases)
    func theInstalledDaemonAnswersWithDfsNumbers(_ release: GenerationRoot.Release) throws {
        let root = try GenerationRoot(release)
        let scratch = try ScratchDirectory("generation-daemon")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=10m,mode=0777")
        try Data(count: 3 << 20).write(to: URL(fileURLWithPath: mount + "/some"))
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "100ms"], in: root)
        try daemon.waitUntilAnswering()
        let json = try daemon.usedspace(["status", "--path", mount, "--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let df = try DiskFree.of(mount)
        #expect(object?["source"] as? String == "daemon", "\(json.stdout)")
        #expect(object?["used_bytes"] as? Int == Int(df.usedBytes), "\(json.stdout) against df's \(df)")
        #expect(object?["used_percent"] as? Int == df.percent, "\(json.stdout) against df's \(df)")
        // The daemon is the package's, run by the release's systemd.
        let exec = try daemon.manager.property("usedspace.service", "ExecStart")
        #expect(exec.contains("path=/usr/bin/usedspaced"), "\(exec)")
        let systemd = try root.packageVersion("systemd")
        print("\(release.testDescription): the package's daemon answered under systemd \(systemd)")
    }
}
