import Foundation
import Testing

/// The bar configurations of docs/status-bars.md, verbatim, in the real bars, beside a
/// neighbour block as users run them: i3blocks under i3, polybar, waybar under sway (as an
/// unprivileged user), and i3bar with i3status through the documented wrapper. Each: the
/// block is shown, follows a real filesystem change, takes the colour of its level, and a
/// left click on it (and not on its neighbour) shows the details, a right click runs the
/// command. When polybar, waybar or i3bar is killed, nothing it ran is left running.
/// With USEDSPACE_SCREENSHOTS=1 the screenshots of docs/status-bars.md are taken anew.
@Suite(.serialized) struct RealBarTests {
    static let document = DocumentationTests.repository.appendingPathComponent("docs/status-bars.md").path

    /// The section `heading` of docs/status-bars.md (its subsections included).
    static func section(_ heading: String) throws -> String {
        let text = try String(contentsOfFile: document, encoding: .utf8)
        guard let section = text.components(separatedBy: "\n## ").first(where: { $0.hasPrefix(heading + "\n") }) else {
            throw HarnessFailure("no ## \(heading) in docs/status-bars.md")
        }
        return section
    }

    /// The fenced block of `language` in the section `heading` of docs/status-bars.md.
    static func snippet(_ heading: String, _ language: String) throws -> String {
        guard let block = try section(heading).components(separatedBy: "```\(language)\n").dropFirst().first?.components(separatedBy: "```").first
        else { throw HarnessFailure("no \(language) block under ## \(heading) in docs/status-bars.md") }
        return block
    }

    /// `text` with `old` replaced: how a test puts a neighbour into a documented bar.
    static func replacing(_ old: String, with new: String, in text: String) throws -> String {
        guard text.contains(old) else { throw HarnessFailure("the documented configuration has no `\(old)`:\n\(text)") }
        return text.replacingOccurrences(of: old, with: new)
    }

    static var updateScreenshots: Bool { ProcessInfo.processInfo.environment["USEDSPACE_SCREENSHOTS"] == "1" }

    static func screenshot(_ desktop: BarDesktop, _ name: String, height: Int = 24) throws {
        guard updateScreenshots else { return }
        try desktop.screenshot(DocumentationTests.repository.appendingPathComponent("docs/images/\(name).png").path, height: height)
    }

    /// Waits for a line the bar got, after the first `after`, that satisfies `predicate`.
    static func line(_ desktop: BarDesktop, after: Int = 0, seconds: Double = 15, _ what: String,
                     _ predicate: (String) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        var found: String?
        _ = waitUntil(seconds: seconds) {
            found = desktop.output.dropFirst(after).last(where: predicate)
            return found != nil
        }
        if found == nil { Issue.record("\(what): no such line; the bar got \(desktop.output.suffix(5))", sourceLocation: sourceLocation) }
        return found
    }

    /// A first left click, clicked again when the bar shows no reaction within a few seconds:
    /// on a loaded machine the bar may not have drawn the block where the click lands yet
    /// (its first line has reached the bar, its drawing has not), and that click is lost.
    /// Only the first click of a test is retried; once the block has been redrawn, it is there.
    static func firstClick(_ desktop: BarDesktop, x: Int, y: Int = 10, _ what: String, _ predicate: (String) -> Bool,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
        let count = desktop.output.count
        var found: String?
        for attempt in 1...3 {
            try desktop.click(x: x, y: y, button: 1)
            if waitUntil(seconds: attempt == 3 ? 15 : 5, {
                found = desktop.output.dropFirst(count).last(where: predicate)
                return found != nil
            }) { return found }
        }
        Issue.record("\(what): no such line after three clicks; the bar got \(desktop.output.suffix(5))", sourceLocation: sourceLocation)
        return nil
    }

    @Test(Prerequisite.root, Prerequisite.enabled(BarDesktop.xAvailable && Prerequisite.hasCommand("i3blocks"),
                                                  "needs Xvfb, i3, i3blocks, xdotool, imagemagick and python3"))
    func i3blocks() throws {
        let desktop = try BarDesktop("i3blocks")
        try desktop.fill(toPercent: 35)
        // Our block, then a clock to its right, which notes the buttons that click it.
        let clockClicks = desktop.scratch.subpath("clock-clicks")
        let clock = "\n[clock]\ncommand=[ -z \"$BLOCK_BUTTON\" ] || echo \"$BLOCK_BUTTON\" >> \(clockClicks); date +%H:%M:%S\ninterval=1\n"
        let config = try desktop.write(try Self.snippet("i3blocks", "ini") + clock, to: "i3blocks.conf")
        try desktop.startI3(statusCommand: "i3blocks -c \(config)")
        let first = Self.line(desktop, "the first update") { $0.contains("full_text") }
        #expect(first?.contains("%") == true && first?.contains("Used:") == false)
        let spots = try Self.spots(desktop, Self.i3barLayout)
        let collapsed = try Self.blocks(desktop, Self.i3barLayout).ours
        try Self.screenshot(desktop, "i3blocks-collapsed")

        #expect(try Self.firstClick(desktop, x: spots.ours.x, "the details after a left click") { $0.contains("Used: ") } != nil)
        // The details drawn (wider than the percentage), before the screenshot.
        #expect(waitUntil(seconds: 10) { (try? desktop.capture()).flatMap(Self.i3barLayout).map { $0.ours.count > collapsed.count } ?? false },
                "the details are not drawn: the block stays \(collapsed.count) columns wide")
        try Self.screenshot(desktop, "i3blocks-expanded")
        let count2 = desktop.output.count
        try desktop.click(x: spots.ours.x, button: 1)
        #expect(Self.line(desktop, after: count2, "collapsed again") { $0.contains("full_text") && !$0.contains("Used:") } != nil)

        // A click on the clock reaches only the clock: ours runs not.
        let before = desktop.output.count
        try Self.expectNeighbourClicksAreNotOurs(desktop, spots: { spots }, landed: { button in
            ((try? String(contentsOfFile: clockClicks, encoding: .utf8)) ?? "").split(separator: "\n").contains("\(button)")
        })
        #expect((try? String(contentsOfFile: desktop.rightClicks, encoding: .utf8))?.contains(desktop.home) == true, "baobab ~ ran on a right click")

        // A real change: the follower signals this i3blocks, which runs the block again.
        try desktop.fill(toPercent: 95)
        let critical = Self.line(desktop, after: before, seconds: 20, "the critical update") { $0.contains("#FF0000") }
        #expect(critical?.contains(#""urgent":"true""#) == true)
        // i3bar draws an urgent block on its urgent background (#900000), over its colour.
        #expect(waitUntil(seconds: 5) { ((try? desktop.pixels(of: "#900000")) ?? 0) > 50 }, "the block is drawn urgent")
        try Self.screenshot(desktop, "i3blocks-critical")

        let i3Log = desktop.logText("i3.log")
        #expect(!i3Log.contains("ERROR"), "\(i3Log.split(separator: "\n").filter { $0.contains("ERROR") })")
    }

    @Test(Prerequisite.root, Prerequisite.enabled(BarDesktop.xAvailable && Prerequisite.hasCommand("polybar"),
                                                  "needs Xvfb, i3, polybar, xdotool, imagemagick and python3"))
    func polybar() throws {
        let desktop = try BarDesktop("polybar")
        try desktop.fill(toPercent: 35)
        // The user's bar: polybar's own clock right beside ours, in a colour of its own.
        let bar = try Self.replacing("modules-right = disk\n", with: "modules-right = disk date\n", in: try Self.snippet("polybar", "ini"))
        let clock = "\n[module/date]\ntype = internal/date\ninterval = 1\ndate = %H:%M:%S\ndate-alt = %Y-%m-%d %H:%M:%S\nlabel-foreground = #ffb52a\n"
        let config = try desktop.write(bar + clock, to: "polybar.ini")
        try desktop.startI3(statusCommand: nil)
        let polybar = try desktop.start("polybar", ["-c", config, "main"], logName: "polybar.log")
        let first = Self.line(desktop, "the first update") { $0.contains("%") }
        #expect(first?.hasPrefix("%{F") == false, "no colour below the limits: \(first ?? "")")
        // Space between ours and the clock: background columns, more than the side bearings
        // of two glyphs side by side (1 to 4 here; a blank is 9).
        let modules = try Self.blocks(desktop, Self.polybarLayout)
        let gap = modules.neighbour.lowerBound - modules.ours.upperBound - 1
        #expect(gap >= 6, "our module is glued to the clock: \(gap) columns between them")
        try Self.screenshot(desktop, "polybar-collapsed")
        let spots = { try Self.spots(desktop, Self.polybarLayout) }

        #expect(try Self.firstClick(desktop, x: try spots().ours.x, "the details after a left click") { $0.contains("Used: ") } != nil)
        let count4 = desktop.output.count
        try desktop.click(x: try spots().ours.x, button: 1)
        #expect(Self.line(desktop, after: count4, "collapsed again") { $0.contains("%") && !$0.contains("Used:") } != nil)

        // A left click on the clock shows its date-alt: it grows. A right click does nothing there.
        try Self.expectNeighbourClicksAreNotOurs(desktop, spots: spots, landed: { button in
            button == 3 || ((try? desktop.capture()).flatMap(Self.polybarLayout).map { $0.neighbour.count > modules.neighbour.count + 50 } ?? false)
        })
        #expect((try? String(contentsOfFile: desktop.rightClicks, encoding: .utf8))?.contains(desktop.home) == true, "baobab ~ ran on a right click")
        // The clock back to its short format, for the screenshots.
        try desktop.click(x: try spots().neighbour.x, button: 1)
        _ = waitUntil(seconds: 5) { (try? desktop.capture()).flatMap(Self.polybarLayout)?.neighbour == modules.neighbour }

        try desktop.fill(toPercent: 95)
        let critical = Self.line(desktop, after: 0, seconds: 20, "the critical update") { $0.hasPrefix("%{F#FF0000}") }
        #expect(critical != nil)
        #expect(waitUntil(seconds: 5) { ((try? desktop.pixels(of: "#FF0000")) ?? 0) > 50 }, "the module is drawn red")
        try Self.screenshot(desktop, "polybar-critical")
        #expect(!desktop.logText("polybar.log").contains("error"), "\(desktop.logText("polybar.log"))")

        Self.expectEverythingEnds(desktop, bar: polybar.pid, signal: SIGKILL)
    }

    /// Whether a waybar update shows the details in its text (its tooltip always does).
    static func waybarDetails(_ line: String) -> Bool {
        (WatchProcess.json(line)?["text"] as? String)?.contains("Used:") == true
    }

    /// polybar draws ours in its default foreground (grey to white) and the clock in its
    /// own colour; the faint edges of glyphs, near the background, count for neither.
    static func polybarLayout(_ shot: BarScreenshot) -> (ours: ClosedRange<Int>, neighbour: ClosedRange<Int>)? {
        let background = shot.background
        let clock = shot.columns { $0.distance(to: background) > 120 && $0.saturation > 120 }
        guard let start = clock.first, let end = clock.last else { return nil }
        let ours = shot.columns { $0.distance(to: background) > 120 && $0.saturation < 60 }.filter { $0 < start }
        guard let oursStart = ours.first, let oursEnd = ours.last else { return nil }
        return (oursStart...oursEnd, start...end)
    }

    @Test(Prerequisite.root, Prerequisite.enabled(BarDesktop.xAvailable && Prerequisite.hasCommand("sway") && Prerequisite.hasCommand("waybar"),
                                                  "needs Xvfb, sway, waybar, xdotool, imagemagick, python3 and useradd"))
    func waybar() throws {
        let desktop = try BarDesktop("waybar", asUser: true)
        try desktop.fill(toPercent: 35)
        // The user's bar: waybar's clock left of ours, noting the buttons that click it.
        let clockClicks = desktop.scratch.subpath("clock-clicks")
        let clock = #""clock": {"format": "{:%H:%M:%S}", "interval": 1, "on-click": "echo 1 >> \#(clockClicks)", "on-click-right": "echo 3 >> \#(clockClicks)"},"#
        let config = try Self.replacing(#""modules-right": ["custom/disk"],"#, with: #""modules-right": ["clock", "custom/disk"], "# + clock,
                                        in: try Self.snippet("waybar", "jsonc"))
        // The user's own style (the clock in a colour of its own, to be told from ours), on a
        // dark theme and later on GTK's light one (Adwaita's), then the documented rules.
        let documentedStyle = try Self.snippet("waybar", "css")
        func style(window: Color, text: String) -> String {
            "* { font-family: \"DejaVu Sans Mono\"; font-size: 13px; }\nwindow#waybar { background: \(window); color: \(text); }\n"
                + "#clock { color: #729fcf; }\n" + documentedStyle
        }
        let dark = Color(red: 0x22, green: 0x22, blue: 0x22), light = Color(red: 0xf6, green: 0xf5, blue: 0xf4)
        try desktop.startSway(waybarConfig: config, style: style(window: dark, text: "#dddddd"))
        let first = Self.line(desktop, seconds: 20, "the first update") { $0.contains("\"text\"") }
        #expect(first?.contains(#""class":["normal"]"#) == true, "\(first ?? "")")
        let spots = { try Self.spots(desktop, height: 30, y: 8, Self.waybarLayout) }
        let normal = try #require(Self.waybarModule(desktop, window: dark, unlike: nil), "the module is not drawn")
        try Self.screenshot(desktop, "waybar-collapsed", height: 30)

        #expect(try Self.firstClick(desktop, x: desktop.width - 40, y: 14, "the details after a left click", Self.waybarDetails) != nil)
        // The details drawn (the module's look changed, and done changing), before the screenshot.
        #expect(Self.waybarModule(desktop, window: dark, unlike: normal.look) != nil, "the details are not drawn")
        try Self.screenshot(desktop, "waybar-expanded", height: 30)
        let expanded = desktop.output.count
        try desktop.click(x: desktop.width - 40, y: 14, button: 1)
        #expect(Self.line(desktop, after: expanded, "collapsed again") { !Self.waybarDetails($0) } != nil)

        try Self.expectNeighbourClicksAreNotOurs(desktop, spots: spots, details: Self.waybarDetails, landed: { button in
            ((try? String(contentsOfFile: clockClicks, encoding: .utf8)) ?? "").split(separator: "\n").contains("\(button)")
        })
        #expect((try? String(contentsOfFile: desktop.rightClicks, encoding: .utf8))?.contains(desktop.home) == true, "baobab ~ ran on a right click")

        // The warning and the critical level, readable on the dark theme…
        try desktop.fill(toPercent: 85)
        #expect(Self.line(desktop, after: 0, seconds: 20, "the warning update") { $0.contains(#""class":["warning"]"#) } != nil)
        let warning = Self.expectReadable(desktop, "the warning on a dark bar", window: dark, unlike: normal.look)
        try desktop.fill(toPercent: 95)
        #expect(Self.line(desktop, after: 0, seconds: 20, "the critical update") { $0.contains(#""class":["critical"]"#) } != nil)
        let critical = Self.expectReadable(desktop, "the critical level on a dark bar", window: dark, unlike: warning)
        let criticalColor = Self.cssColor(documentedStyle, rule: "#custom-disk.critical", property: "background")
        #expect(try desktop.pixels(of: criticalColor ?? "none", height: 30) > 50, "the module is drawn on its critical background \(criticalColor ?? "") (its CSS)")
        try Self.screenshot(desktop, "waybar-critical", height: 30)

        // …and on the light one: the user switches, and waybar reloads its style (SIGUSR2),
        // and its modules with it.
        let waybar = try #require(desktop.barProcess("waybar"))
        let reload = desktop.output.count
        _ = try desktop.write(style(window: light, text: "#2e3436"), to: "config/waybar/style.css")
        kill(waybar, SIGUSR2)
        #expect(Self.line(desktop, after: reload, seconds: 20, "the update after the reload") { $0.contains(#""class":["critical"]"#) } != nil)
        let criticalOnLight = Self.expectReadable(desktop, "the critical level on a light bar", window: light, unlike: nil)
        try desktop.fill(toPercent: 85)
        #expect(Self.line(desktop, after: reload, seconds: 20, "the warning update") { $0.contains(#""class":["warning"]"#) } != nil)
        Self.expectReadable(desktop, "the warning on a light bar", window: light, unlike: criticalOnLight)
        try Self.screenshot(desktop, "waybar-warning-light", height: 30)

        let waybarLog = desktop.logText("sway.log")
        #expect(!waybarLog.contains("[error]"), "\(waybarLog.split(separator: "\n").filter { $0.contains("[error]") })")
        // waybar on SIGTERM kills the `sh -c` of its exec command, not what that runs.
        Self.expectEverythingEnds(desktop, bar: waybar, signal: SIGTERM)
    }
}
