import Foundation
import Testing
import UsedSpaceCore

/// `{used:iec}` and `{used:si}` against coreutils itself: `numfmt --round=up` over tens of
/// thousands of values in one run, and `df -h` / `df -H` on real filesystems, through the
/// built binary. A user who reads "17G" in df must read "17G" here.
@Suite(.serialized) struct HumanSizeParityTests {
    /// Every value up to 3,000; around each multiple of each unit from 1 to 1,100 units
    /// (the carries: 1023.95K, 9.95M…) ±1 byte; then 10,000 values spread evenly over the
    /// magnitudes up to 2⁶², from a fixed seed.
    static var values: [UInt64] {
        var values = Array(UInt64(0)...3000)
        for base in [UInt64(1000), 1024] {
            var unit = base
            for _ in 1...5 {
                for multiple in stride(from: UInt64(1), through: 1100, by: 7) {
                    let center = multiple * unit
                    values += [center - 1, center, center + 1, center + unit / 20, center + unit / 2]
                }
                unit *= base
            }
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<10_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let magnitude = (state >> 58) % 62 + 1
            values.append((state >> 1) >> (63 - magnitude))
        }
        return values
    }

    /// numfmt's output for each value, one per line, from one run.
    static func numfmt(_ values: [UInt64], to: String) throws -> [String] {
        let input = values.map(String.init).joined(separator: "\n") + "\n"
        let result = try CommandRunner.run("/usr/bin/numfmt", ["--to=\(to)", "--round=up"], stdin: Data(input.utf8), timeout: 60)
        try #require(result.status == 0, "numfmt: \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test(Prerequisite.enabled(Prerequisite.hasCommand("numfmt"), "needs numfmt (coreutils)"))
    func iecIsNumfmtToIecRoundingUp() throws {
        let values = Self.values
        #expect(values.count >= 10_000)
        let theirs = try Self.numfmt(values, to: "iec")
        try #require(theirs.count == values.count)
        let differences = zip(values, theirs).filter { HumanSize.format($0, base: .binary) != $1 }
        #expect(differences.isEmpty, "\(differences.count) differ, e.g. \(differences.prefix(5).map { "\($0): ours \(HumanSize.format($0, base: .binary)), numfmt \($1)" })")
    }

    /// numfmt writes kilo "K" where df -H (gnulib's human.c) writes "k"; every other
    /// character agrees. We write df's.
    @Test(Prerequisite.enabled(Prerequisite.hasCommand("numfmt"), "needs numfmt (coreutils)"))
    func siIsNumfmtToSiRoundingUpButForDfsLowercaseKilo() throws {
        let values = Self.values
        let theirs = try Self.numfmt(values, to: "si")
        try #require(theirs.count == values.count)
        var kilos = 0
        let differences = zip(values, theirs).filter { value, numfmt in
            let ours = HumanSize.format(value, base: .decimal)
            if ours.hasSuffix("k") { kilos += 1 }
            return ours != (numfmt.hasSuffix("K") ? numfmt.dropLast() + "k" : numfmt)
        }
        #expect(differences.isEmpty, "\(differences.count) differ, e.g. \(differences.prefix(5).map { "\($0): ours \(HumanSize.format($0, base: .decimal)), numfmt \($1)" })")
        #expect(kilos > 100, "the kilo range was exercised")
    }

    /// df -h and df -H of `path`, against `usedspace status --template` of it. Like the
    /// other parity tests, the two read the filesystem at different instants: it must agree
    /// in one of 20 attempts (a filesystem in motion), and a real difference fails.
    static func expectDfParity(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var last = ""
        for _ in 0..<20 {
            let df = try CommandRunner.shell("df -h --output=size,used,avail \(quoted(path)) | tail -n 1; df -H --output=size,used,avail \(quoted(path)) | tail -n 1")
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let ours = try CommandRunner.run(CommandRunner.usedspace, [
                "status", "--no-daemon", "--path", path, "--template", "{total:iec} {used:iec} {free:iec} {total:si} {used:si} {free:si}",
            ])
            #expect(ours.status == 0, "\(ours.stderr)", sourceLocation: sourceLocation)
            let line = ours.stdout.trimmingCharacters(in: .newlines)
            if line == df { return }
            last = "df: \(df); usedspace: \(line)"
        }
        Issue.record("\(path): no attempt agreed with df -h/-H; the last: \(last)", sourceLocation: sourceLocation)
    }

    @Test func rootFilesystem() throws {
        try Self.expectDfParity("/")
    }

    @Test(Prerequisite.root) func tmpfsOfOddSizes() throws {
        let scratch = try ScratchDirectory("humansize")
        // Kilobytes (df -H's "k"), a carry to the next unit, and one decimal below ten.
        for (name, size, fill) in [("small", "700k", 123_456), ("odd", "12345k", 3_333_333), ("carry", "1047552k", 10_000), ("nine", "9900k", 9_000_000)] {
            let mount = try scratch.mountTmpfs(at: name, options: "size=\(size)")
            try Data(count: fill).write(to: URL(fileURLWithPath: mount + "/filler"))
            try Self.expectDfParity(mount)
        }
    }

    @Test(Prerequisite.root, Prerequisite.enabled(Prerequisite.hasCommand("mkfs.ext4"), "needs mkfs.ext4 (e2fsprogs)"))
    func ext4WithReservedBlocks() throws {
        let scratch = try ScratchDirectory("humansize-ext4")
        let mount = try scratch.mountExt4(at: "disk", megabytes: 64, reservedPercent: 5)
        try Data(count: 7_000_000).write(to: URL(fileURLWithPath: mount + "/filler"))
        sync()
        try Self.expectDfParity(mount)
    }
}
