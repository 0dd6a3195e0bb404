import Foundation
import Testing
@testable import UsedSpaceCore

/// i3status-style golden tests: each directory under Golden/ holds an input snapshot (in the
/// persisted format) and the expected output of every renderer. The expected files were
/// derived independently of this code (exact fractions and hand-checked byte counts), not
/// recorded from it.
@Suite struct GoldenRenderingTests {
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static var caseNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: goldenDirectory.path)) ?? []
        return names.filter { $0 != "clicks" }.sorted()
    }

    static func read(_ caseName: String, _ file: String) throws -> String {
        try String(contentsOf: goldenDirectory.appendingPathComponent(caseName).appendingPathComponent(file), encoding: .utf8)
    }

    static func snapshot(_ caseName: String) throws -> Snapshot {
        try SnapshotCodec.decode(read(caseName, "snapshot.json"), source: .daemon)
    }

    @Test func thereAreGoldenCases() {
        #expect(Self.caseNames.count >= 10)
    }

    // One try before each comparison, not one on each side: Swift 6.0's #expect puts a
    // parenthesised try on its right in a non-throwing autoclosure.
    @Test(arguments: caseNames) func textLine(_ caseName: String) throws {
        #expect(try TextRenderer.render(Self.snapshot(caseName), details: false) == Self.read(caseName, "text.expected"))
    }

    @Test(arguments: caseNames) func details(_ caseName: String) throws {
        #expect(try TextRenderer.render(Self.snapshot(caseName), details: true) == Self.read(caseName, "details.expected"))
    }

    @Test(arguments: caseNames) func json(_ caseName: String) throws {
        #expect(try JSONRenderer.render(Self.snapshot(caseName)) + "\n" == Self.read(caseName, "json.expected"))
    }

    /// The JSON is valid for an independent parser and carries every key of the contract.
    @Test(arguments: caseNames) func jsonHasTheContractKeys(_ caseName: String) throws {
        let line = JSONRenderer.render(try Self.snapshot(caseName))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        for key in ["path", "mountpoint", "fstype", "total_bytes", "used_bytes", "free_bytes", "reserved_bytes",
                    "used_rate", "used_percent", "seq", "sampled_at", "state", "source"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect((object["state"] as? String) != "failed" || object["error"] is String)
    }

    /// The case's [bar] settings (bar.conf), or the defaults.
    static func barOptions(_ caseName: String) throws -> BarOptions {
        guard let text = try? read(caseName, "bar.conf") else { return BarOptions() }
        return try Configuration.parse(text).bar
    }

    static func block(_ caseName: String, expanded: Bool) throws -> BarBlock {
        let snapshot = try Self.snapshot(caseName)
        let options = try barOptions(caseName)
        // As a first publish decides it.
        let severity = FilesystemLevel.decide(snapshot, limits: options.severity, previous: nil)
        return BarBlock(snapshot, options: options, severity: severity, expanded: expanded)
    }

    @Test(arguments: caseNames) func i3bar(_ caseName: String) throws {
        #expect(try I3barRenderer.statusLine([Self.block(caseName, expanded: false)]) + "\n" == Self.read(caseName, "i3bar.expected"))
        #expect(try I3barRenderer.statusLine([Self.block(caseName, expanded: true)]) + "\n" == Self.read(caseName, "i3bar-details.expected"))
    }

    @Test(arguments: caseNames) func i3blocks(_ caseName: String) throws {
        #expect(try I3blocksRenderer.line(Self.block(caseName, expanded: false)) + "\n" == Self.read(caseName, "i3blocks.expected"))
    }

    @Test(arguments: caseNames) func polybar(_ caseName: String) throws {
        #expect(try PolybarRenderer.line(Self.block(caseName, expanded: false)) + "\n" == Self.read(caseName, "polybar.expected"))
    }

    @Test(arguments: caseNames) func waybar(_ caseName: String) throws {
        #expect(try WaybarRenderer.line(Self.block(caseName, expanded: false)) + "\n" == Self.read(caseName, "waybar.expected"))
    }

    /// Every bar line is one line of valid JSON where the format is JSON.
    @Test(arguments: caseNames) func barJSONIsValid(_ caseName: String) throws {
        for file in ["i3bar.expected", "i3bar-details.expected", "i3blocks.expected", "waybar.expected"] {
            let text = try Self.read(caseName, file)
            #expect(text.filter { $0 == "\n" }.count == 1)
            #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil, "\(caseName)/\(file)")
        }
    }

    /// The persisted form reads back to the same snapshot.
    @Test(arguments: caseNames) func codecRoundTrip(_ caseName: String) throws {
        let snapshot = try Self.snapshot(caseName)
        #expect(try SnapshotCodec.decode(SnapshotCodec.encode(snapshot), source: .daemon) == snapshot)
        #expect(try SnapshotCodec.encode(snapshot) + "\n" == Self.read(caseName, "snapshot.json"))
    }
}
