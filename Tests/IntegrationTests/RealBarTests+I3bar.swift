import Foundation
import Testing

/// i3bar as docs/status-bars.md configures it, verbatim: usedspace as its status command,
/// and beside i3status through the documented wrapper, with a real i3status showing the
/// load and a clock: ours, then i3status's. The clock's block has an instance (`local`),
/// the load's none.
extension RealBarTests {
    /// The command of the documented `status_command` line that contains `text`.
    static func statusCommand(containing text: String) throws -> String {
        guard let line = try section("i3bar").split(separator: "\n").first(where: { $0.contains("status_command") && $0.contains(text) }) else {
            throw HarnessFailure("no status_command with \(text) under ## i3bar in docs/status-bars.md")
        }
        return String(line.trimmingCharacters(in: .whitespaces).dropFirst("status_command ".count))
    }

    @Test(Prerequisite.root, Prerequisite.enabled(BarDesktop.xAvailable, "needs Xvfb, i3, xdotool, imagemagick and python3"))
    func i3bar() throws {
        let desktop = try BarDesktop("i3bar")
        try desktop.fill(toPercent: 35)
        try desktop.startI3(statusCommand: try Self.statusCommand(containing: "usedspace watch"))
        #expect(Self.line(desktop, "the first update") { $0.contains("full_text") }?.contains("Used:") == false)
        // The only block, at the right end.
        #expect(try Self.firstClick(desktop, x: desktop.width - 40, "the details after a left click") { $0.contains("Used: ") } != nil)
        Self.expectEverythingEnds(desktop, bar: try #require(desktop.barProcess("i3bar")), signal: SIGKILL)
    }

    static let i3statusConfig = """
        general {
            output_format = "i3bar"
            colors = false
            interval = 1
        }
        order += "load"
        order += "tztime local"
        load {
            format = "%1min"
        }
        tztime local {
            format = "%H:%M:%S"
        }
        """

    /// Ours, then i3status's load, then its clock.
    static func i3statusBlocks(_ shot: BarScreenshot) -> (ours: ClosedRange<Int>, load: ClosedRange<Int>, clock: ClosedRange<Int>)? {
        let blocks = i3barBlocks(shot)
        guard blocks.count >= 3, blocks[blocks.count - 3].count > 50 else { return nil }
        return (blocks[blocks.count - 3], blocks[blocks.count - 2], blocks[blocks.count - 1])
    }

    @Test(Prerequisite.root, Prerequisite.enabled(BarDesktop.xAvailable && Prerequisite.hasCommand("i3status"),
                                                  "needs Xvfb, i3, i3status, xdotool, imagemagick and python3"))
    func i3barBesideI3status() throws {
        let desktop = try BarDesktop("i3status")
        try desktop.fill(toPercent: 35)
        // The script where the documented i3 config line runs it from, and i3status's own configuration.
        let command = try Self.statusCommand(containing: "usedspace-i3status")
        let script = String(command.prefix { $0 != " " }).replacingOccurrences(of: "~", with: desktop.home)
        try FileManager.default.createDirectory(atPath: (script as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Self.snippet("i3bar", "sh").write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        _ = try desktop.write(Self.i3statusConfig, to: "config/i3status/config")
        try desktop.startI3(statusCommand: command)

        let first = Self.line(desktop, "the first update") { $0.contains("full_text") }
        #expect(first?.contains("Used:") == false)
        let clockLayout: Layout = { Self.i3statusBlocks($0).map { ($0.ours, $0.clock) } }
        let loadLayout: Layout = { Self.i3statusBlocks($0).map { ($0.ours, $0.load) } }
        let blocks = try Self.blocks(desktop, clockLayout)
        try Self.screenshot(desktop, "i3bar-i3status")
        // i3status's blocks come at its interval: its clock ticks.
        let clock = { (shot: BarScreenshot) in shot.pixels(columns: blocks.neighbour.lowerBound..<shot.width, rows: 0..<shot.height) }
        let time = try clock(desktop.capture())
        #expect(waitUntil(seconds: 5) { (try? desktop.capture()).map(clock) != time }, "i3status's clock stands still")

        // Ours when published, i3status or not: with i3status stopped, a click on ours shows
        // the details in the bar (ours grows to the left).
        let bar = try #require(desktop.barProcess("i3bar"))
        let i3status = try #require(ProcessTable.descendants(of: bar).first { ProcessTable.arguments(of: $0).first == "i3status" })
        let x = (blocks.ours.lowerBound + blocks.ours.upperBound) / 2
        do {
            kill(i3status, SIGSTOP)
            defer { kill(i3status, SIGCONT) }
            #expect(try Self.firstClick(desktop, x: x, "the details after a left click") { $0.contains("Used: ") } != nil)
            #expect(waitUntil(seconds: 5) { ((try? desktop.capture()).flatMap(clockLayout)?.ours.lowerBound ?? .max) < blocks.ours.lowerBound - 100 },
                    "the details are not shown while i3status is silent")
        }
        let expanded = desktop.output.count
        try desktop.click(x: x, button: 1)
        #expect(Self.line(desktop, after: expanded, "collapsed again") { !$0.contains("Used:") } != nil)

        // i3bar sends the clicks of i3status's blocks through the wrapper to usedspace too.
        try Self.expectNeighbourClicksAreNotOurs(desktop, spots: { try Self.spots(desktop, clockLayout) })
        try Self.expectNeighbourClicksAreNotOurs(desktop, spots: { try Self.spots(desktop, loadLayout) })
        #expect((try? String(contentsOfFile: desktop.rightClicks, encoding: .utf8))?.contains(desktop.home) == true, "baobab ~ ran on a right click")
        let i3Log = desktop.logText("i3.log")
        #expect(!i3Log.contains("ERROR"), "\(i3Log.split(separator: "\n").filter { $0.contains("ERROR") })")

        // i3bar killed: the wrapper, i3status and our watch go with it.
        Self.expectEverythingEnds(desktop, bar: bar, signal: SIGKILL)
    }
}
