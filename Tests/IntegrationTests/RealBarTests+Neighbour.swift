import Foundation
import Testing

/// Our block beside a neighbour, as users run it: where each is drawn (from a screenshot),
/// clicks on the neighbour, and the end of it all when the bar is killed.
extension RealBarTests {
    /// The columns our block and its neighbour are drawn in, from one screenshot.
    typealias Layout = (BarScreenshot) -> (ours: ClosedRange<Int>, neighbour: ClosedRange<Int>)?

    struct Spot {
        var x: Int
        var y: Int
    }

    /// Waits until `layout` finds both blocks drawn; they move when one of them grows.
    static func blocks(_ desktop: BarDesktop, height: Int = 24, _ layout: Layout) throws -> (ours: ClosedRange<Int>, neighbour: ClosedRange<Int>) {
        var found: (ours: ClosedRange<Int>, neighbour: ClosedRange<Int>)?
        guard waitUntil(seconds: 10, { found = (try? desktop.capture(height: height)).flatMap(layout); return found != nil }), let found else {
            throw HarnessFailure("our block and its neighbour are not both drawn")
        }
        return found
    }

    /// The middle of each block, where a click lands on it.
    static func spots(_ desktop: BarDesktop, height: Int = 24, y: Int = 10, _ layout: Layout) throws -> (ours: Spot, neighbour: Spot) {
        let found = try blocks(desktop, height: height, layout)
        return (Spot(x: (found.ours.lowerBound + found.ours.upperBound) / 2, y: y),
                Spot(x: (found.neighbour.lowerBound + found.neighbour.upperBound) / 2, y: y))
    }

    /// The blocks of an i3bar's status line, left to right: i3bar draws a separator (a line
    /// of #666666) between two blocks. The first reaches left as far as its text goes on
    /// (gaps of a few blanks), up to the workspace buttons far away.
    static func i3barBlocks(_ shot: BarScreenshot) -> [ClosedRange<Int>] {
        let separator = Color(red: 0x66, green: 0x66, blue: 0x66), background = shot.background
        let lines = (0..<shot.width).filter { x in (0..<shot.height).filter { shot[x, $0] == separator }.count >= 8 }
        guard let firstLine = lines.first else { return [] }
        let drawn = shot.columns { $0.distance(to: background) > 100 && $0 != separator }
        var first: [Int] = []
        for x in drawn.filter({ $0 < firstLine }).reversed() {
            if (first.last ?? firstLine) - x > 30 { break }
            first.append(x)
        }
        var blocks: [ClosedRange<Int>] = []
        if let start = first.last, let end = first.first { blocks.append(start...end) }
        for (index, line) in lines.enumerated() {
            let next = index + 1 < lines.count ? lines[index + 1] : shot.width
            let columns = drawn.filter { $0 > line && $0 < next }
            if let start = columns.first, let end = columns.last { blocks.append(start...end) }
        }
        return blocks
    }

    /// Ours, then its neighbour, the last block (i3blocks' clock).
    static func i3barLayout(_ shot: BarScreenshot) -> (ours: ClosedRange<Int>, neighbour: ClosedRange<Int>)? {
        let blocks = i3barBlocks(shot)
        guard blocks.count >= 2, blocks[blocks.count - 2].count > 50 else { return nil }
        return (blocks[blocks.count - 2], blocks[blocks.count - 1])
    }

    /// Clicks on the neighbour are not ours, and ours still are. A left click on the
    /// neighbour, then one on ours: ours shows its details, once (had the neighbour's click
    /// toggled them too, they would show and go again). A right click on the neighbour,
    /// then one on ours: the command runs once. `landed(button)` says that the neighbour got
    /// its click, where the neighbour can tell; `details` whether an update shows the details.
    static func expectNeighbourClicksAreNotOurs(_ desktop: BarDesktop, spots: () throws -> (ours: Spot, neighbour: Spot),
                                                details: (String) -> Bool = { $0.contains("Used:") }, landed: ((Int) -> Bool)? = nil,
                                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        func click(_ spot: Spot, _ button: Int) throws { try desktop.click(x: spot.x, y: spot.y, button: button) }
        let count = desktop.output.count
        try click(try spots().neighbour, 1)
        if let landed { #expect(waitUntil(seconds: 10) { landed(1) }, "the neighbour got no left click", sourceLocation: sourceLocation) }
        try click(try spots().ours, 1)
        #expect(line(desktop, after: count, "the details after a left click on ours", details, sourceLocation: sourceLocation) != nil)
        #expect(!waitUntil(seconds: 1) { desktop.output.count > count + 1 },
                "a left click on the neighbour acted on ours: \(desktop.output.dropFirst(count))", sourceLocation: sourceLocation)
        let expanded = desktop.output.count
        try click(try spots().ours, 1)
        #expect(line(desktop, after: expanded, "collapsed again", { !details($0) }, sourceLocation: sourceLocation) != nil)

        func rightClicks() -> Int { ((try? String(contentsOfFile: desktop.rightClicks, encoding: .utf8)) ?? "").split(separator: "\n").count }
        let before = rightClicks()
        try click(try spots().neighbour, 3)
        if let landed { #expect(waitUntil(seconds: 10) { landed(3) }, "the neighbour got no right click", sourceLocation: sourceLocation) }
        try click(try spots().ours, 3)
        #expect(waitUntil(seconds: 10) { rightClicks() > before }, "a right click on ours ran nothing", sourceLocation: sourceLocation)
        #expect(!waitUntil(seconds: 1) { rightClicks() > before + 1 }, "a right click on the neighbour ran our command", sourceLocation: sourceLocation)
    }

    /// The bar killed by `signal`: within two seconds its `watch` has ended, leaving no
    /// control socket, and so has everything else the bar ran (its `sh -c`, a wrapper,
    /// i3status): nothing is left running for a bar that is gone.
    static func expectEverythingEnds(_ desktop: BarDesktop, bar: pid_t, signal: Int32, sourceLocation: SourceLocation = #_sourceLocation) {
        let watches = desktop.watchProcesses, started = ProcessTable.descendants(of: bar)
        #expect(!watches.isEmpty && watches.allSatisfy(started.contains),
                "the bar's watch, by its control socket: \(desktop.controlSockets), among \(ProcessTable.describe(started))", sourceLocation: sourceLocation)
        kill(bar, signal)
        #expect(waitUntil(seconds: 2) { !watches.contains(where: ProcessTable.isRunning) },
                "the watch outlived its bar: \(ProcessTable.describe(watches.filter(ProcessTable.isRunning)))", sourceLocation: sourceLocation)
        #expect(waitUntil(seconds: 1) { desktop.controlSockets.isEmpty }, "control sockets left behind: \(desktop.controlSockets)", sourceLocation: sourceLocation)
        #expect(waitUntil(seconds: 2) { !started.contains(where: ProcessTable.isRunning) },
                "left running: \(ProcessTable.describe(started.filter(ProcessTable.isRunning)))", sourceLocation: sourceLocation)
    }
}
