import Testing
import UsedSpaceCore

/// The desktops' numbers are the command line's: desktop/common/format.js, which GNOME
/// Shell and Plasma format with, run by gjs on hundreds of thousands of values, against
/// UsedSpaceCore (the reference: macOS's file sizes, docs/output.md) on the same values.
/// Any difference fails, and the first ones are shown.
///
/// The desktops show sizes only in the file style (Used, Free, Total, a quota, a fast fill's
/// rate, btrfs's unallocated space): never in `iec` or `si`, which format.js does not have.
/// Sizes reach them as doubles (D-Bus `t`, JSON numbers): from 2⁵³ up the shares are
/// compared on whole 4 KiB blocks, which doubles hold exactly (FormatParityValues.asBlocks).
@Suite(Prerequisite.enabled(DesktopFormatDriver.available, DesktopFormatDriver.requirement))
struct DesktopFormatParityTests {
    static func expectNoDifference(_ cases: [DesktopFormatDriver.Case], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let differences = try DesktopFormatDriver.differences(cases)
        let differing = differences.count
        #expect(differing == 0, """
            format.js differs from UsedSpaceCore in \(differences.count) of \(cases.count) cases, first:
            \(differences.prefix(20).joined(separator: "\n"))
            """, sourceLocation: sourceLocation)
    }

    /// fileSize: "Zero KB", "1 byte", "999 bytes", "1,000 KB", "1.2 MB", "167.2 GB", "9.22 EB".
    @Test func fileSizes() throws {
        let cases = FormatParityValues.byteCounts.map { bytes in
            DesktopFormatDriver.Case(call: "size \(bytes)", expected: ByteCountFormat.file(bytes))
        }
        #expect(cases.count > 100_000)
        try Self.expectNoDifference(cases)
    }

    /// percentText, the bar of 20 cells (barText) and the fill of 1000 that the panel and
    /// the menu draw (filledCells), of used and free.
    @Test func percentagesAndBars() throws {
        var cases: [DesktopFormatDriver.Case] = []
        var beyondExact = 0
        for (used, free) in FormatParityValues.usedFreePairs {
            let usable = used + free
            let fraction = usable == 0 ? nil : Fraction(numerator: used, denominator: usable)
            if usable >= 1 << 50 { beyondExact += 1 }
            cases.append(.init(call: "percent \(used) \(free)", expected: fraction.map { PercentText.oneDecimal($0, padded: false) } ?? ""))
            cases.append(.init(call: "bar \(used) \(free) 20", expected: ProgressBar.render(fraction, width: 20)))
            let filled = ProgressBar.render(fraction, width: 1000).filter { $0 == ProgressBar.filledCell }.count
            cases.append(.init(call: "cells \(used) \(free) 1000", expected: String(filled)))
        }
        #expect(cases.count > 30_000)
        #expect(beyondExact > 1000, "sizes beyond 2 PiB, where format.js leaves exact arithmetic")
        try Self.expectNoDifference(cases)
    }

    /// describeTimeToFull of ranges (every upper bound with every fourth lower bound, and
    /// each bound alone), and fastFillText ("120 MB/s — full in about 6 minutes", the
    /// details' "Filling:") of rates and times.
    @Test func timesToFullAndFastFills() throws {
        let seconds = FormatParityValues.seconds
        var cases: [DesktopFormatDriver.Case] = []
        for (index, lower) in seconds.enumerated() {
            for upper in seconds where upper > lower && index % 4 == 0 || upper == lower {
                cases.append(.init(call: "time \(lower) \(upper)", expected: TimeToFull.describe(lowerSeconds: lower, upperSeconds: upper)))
            }
        }
        cases += seconds.map { .init(call: "time \($0) -1", expected: TimeToFull.describe(lowerSeconds: $0, upperSeconds: -1)) }
        let rates = FormatParityValues.byteCounts.enumerated().filter { $0.offset % 2000 == 0 }.map(\.element).filter { $0 > 0 }
        for rate in rates {
            for time in seconds where time >= 0 {
                let fill = FastFill(bytesPerSecond: rate, secondsToFull: time, sustainedSeconds: 0).description
                #expect(fill.hasPrefix("filling at "))
                cases.append(.init(call: "fill \(rate) \(time)", expected: String(fill.dropFirst("filling at ".count))))
            }
        }
        #expect(cases.count > 50_000)
        try Self.expectNoDifference(cases)
    }
}
