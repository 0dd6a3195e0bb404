import Foundation
import Testing

/// `usedspace watch --format i3bar` as the status command of a real i3bar, in a real i3,
/// under Xvfb; clicks come from xdotool, as a pointer would make them.
@Suite(.serialized, Prerequisite.enabled(I3Desktop.available, "needs Xvfb, i3, xdotool and a font (xvfb i3-wm xdotool fonts-dejavu-core)"))
struct I3barTests {
    @Test func aLeftClickOnTheBlockShowsTheDetailsAndARightClickRunsTheCommand() throws {
        let marker = "/tmp/usedspace-i3bar-right-\(getpid())"
        try? FileManager.default.removeItem(atPath: marker)
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let desktop = try I3Desktop(statusCommand: "--warn 10% --click-right 'touch \(marker)'")
        #expect(waitUntil(seconds: 15) { desktop.watchOutput.count >= 3 }, "no output from watch: \(desktop.i3Log)")
        let header = desktop.watchOutput.first ?? ""
        #expect(header == #"{"version":1,"click_events":true}"#)
        #expect(!(desktop.watchOutput.last ?? "").contains("Used:"))
        // The block is at the right end. i3bar has its lines, but may not have drawn the block
        // yet, and a click there is then lost: the first left click is clicked again when the
        // bar shows no reaction within a few seconds (as RealBarTests.firstClick does).
        var details = false
        for attempt in 1...3 where !details {
            try desktop.click(x: 960, button: 1)
            details = waitUntil(seconds: attempt == 3 ? 10 : 5) { desktop.watchOutput.last?.contains("Used: ") == true }
        }
        #expect(details, "no details after three clicks: \(desktop.watchOutput)")
        let expanded = try #require(desktop.watchOutput.last)
        #expect(expanded.hasPrefix(",[{\"name\":\"usedspace\""))

        try desktop.click(x: 960, button: 3)
        #expect(waitUntil(seconds: 10) { FileManager.default.fileExists(atPath: marker) })

        let log = desktop.i3Log
        for complaint in ["Could not parse", "status_command", "ERROR"] {
            #expect(!log.contains(complaint), "i3 logged: \(log.split(separator: "\n").filter { $0.contains(complaint) })")
        }
    }
}
