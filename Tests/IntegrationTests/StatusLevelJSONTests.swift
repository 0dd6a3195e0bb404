import Foundation
import Testing

/// `status --all --format json` (the configuration read) carries each filesystem's label and
/// level as the daemon's D-Bus object says them: the Plasma widget, which cannot read the
/// bus, colours by them as GNOME Shell does by `Severity`.
@Suite struct StatusLevelJSONTests {
    static func objects(_ arguments: [String], config: String) throws -> [[String: Any]] {
        let directory = try ScratchDirectory("status-level")
        let file = directory.subpath("config")
        try config.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try TemplateCommandTests.usedspace(arguments + ["--config", file], TemplateCommandTests.environment(directory))
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { WatchProcess.json(String($0)) }
    }

    @Test func theLimitsAndTheLabelOfTheConfigurationAreInTheJSON() throws {
        let percent = try DiskFree.of("/").percent
        // A limit the root filesystem is past, and one it is below.
        let past = try Self.objects(["status", "--all", "--format", "json"],
                                    config: "[daemon]\npath = /\n\n[filesystem /]\nlabel = \"root \"\nwarn = \(max(percent - 1, 0))%\ncritical = 100%\n")
        #expect(past.first?["label"] as? String == "root " && past.first?["severity"] as? String == "warning", "\(past)")
        // No limits: the standard ones (80 % and 90 %), as on the bus.
        let standard = try Self.objects(["status", "--all", "--format", "json"], config: "[daemon]\npath = /\n")
        let expected = percent >= 90 ? "critical" : percent >= 80 ? "warning" : "normal"
        #expect(standard.first?["label"] as? String == "" && standard.first?["severity"] as? String == expected, "\(standard)")
        // One path, no configuration read: the keys of the contract only.
        let plain = try TemplateCommandTests.usedspace(["status", "--path", "/", "--format", "json"], TemplateCommandTests.environment(try ScratchDirectory("status-plain")))
        #expect(!plain.stdout.contains("\"severity\""), "\(plain.stdout)")
    }
}
