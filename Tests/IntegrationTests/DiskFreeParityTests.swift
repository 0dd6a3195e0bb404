import Foundation
import Testing
import UsedSpaceCore
import UsedSpaceSystem

/// Our numbers against df(1) on real filesystems: the root filesystem, a tmpfs of an odd
/// size, a loop-mounted ext4 with reserved blocks, and mount points with spaces.
@Suite(.serialized) struct DiskFreeParityTests {
    /// df and our sampler read the filesystem at different instants, and the root filesystem
    /// moves while tests build and run (it can even change and change back between two of
    /// our samples). So each attempt brackets df with two of our samples, and the numbers
    /// must agree in one of 20 attempts: a filesystem in motion gets another try, while a
    /// real difference, which every attempt shows, fails with the last one's details.
    static func expectParity(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var differences: [String] = []
        for _ in 0..<20 {
            let before = PathSampler.sample(path)
            let df = try DiskFree.of(path)
            let after = PathSampler.sample(path)
            guard case .measured(let first) = before, case .measured(let second) = after else {
                Issue.record("sampling \(path) failed: \(before)", sourceLocation: sourceLocation)
                return
            }
            guard first.stats == second.stats else { differences = ["our two samples differ"]; continue }
            let stats = first.stats
            differences = [
                compare("total", stats.totalBytes, df.sizeBytes),
                compare("used", stats.usedBytes, df.usedBytes),
                compare("free", stats.freeBytes, df.availableBytes),
                compare("Use%", stats.usedPercent, df.percent),
                compare("reserved", stats.reservedBytes, df.sizeBytes - df.usedBytes - df.availableBytes),
                compare("mount point", first.mountPoint, df.target),
                compare("type", first.fileSystemType, df.type),
            ].compactMap { $0 }
            if differences.isEmpty { return }
        }
        Issue.record("\(path): no attempt agreed with df; the last: \(differences.joined(separator: "; "))", sourceLocation: sourceLocation)
    }

    /// The same comparison through the built binary's JSON, read with an independent parser.
    static func expectBinaryParity(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var differences: [String] = []
        for _ in 0..<20 {
            let first = try CommandRunner.run(CommandRunner.usedspace, ["status", "--path", path, "--format", "json"])
            let df = try DiskFree.of(path)
            let second = try CommandRunner.run(CommandRunner.usedspace, ["status", "--path", path, "--format", "json"])
            #expect(first.status == 0, sourceLocation: sourceLocation)
            #expect(first.stderr == "", sourceLocation: sourceLocation)
            func withoutTime(_ line: String) -> String { line.replacingOccurrences(of: #""sampled_at":"[^"]*""#, with: "", options: .regularExpression) }
            guard withoutTime(first.stdout) == withoutTime(second.stdout) else { differences = ["our two samples differ"]; continue }
            let json = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
            let rate = try #require(json["used_rate"] as? Double)
            let used = Double(df.usedBytes), usable = Double(df.usedBytes + df.availableBytes)
            differences = [
                compare("total_bytes", (json["total_bytes"] as? NSNumber)?.uint64Value, df.sizeBytes),
                compare("used_bytes", (json["used_bytes"] as? NSNumber)?.uint64Value, df.usedBytes),
                compare("free_bytes", (json["free_bytes"] as? NSNumber)?.uint64Value, df.availableBytes),
                compare("reserved_bytes", (json["reserved_bytes"] as? NSNumber)?.uint64Value, df.sizeBytes - df.usedBytes - df.availableBytes),
                compare("used_percent", json["used_percent"] as? Int, df.percent),
                compare("mountpoint", json["mountpoint"] as? String, df.target),
                compare("fstype", json["fstype"] as? String, df.type),
                compare("source", json["source"] as? String, "direct"),
                compare("state", json["state"] as? String, "fresh"),
                abs(rate - used / usable) < 1e-12 ? nil : "used_rate: \(rate), df's \(used / usable)",
            ].compactMap { $0 }
            if differences.isEmpty { return }
        }
        Issue.record("\(path): no attempt agreed with df; the last: \(differences.joined(separator: "; "))", sourceLocation: sourceLocation)
    }

    /// nil when they agree, else what differs.
    static func compare<Value: Equatable>(_ what: String, _ ours: Value?, _ df: Value?) -> String? {
        ours == df ? nil : "\(what): ours \(ours.map { "\($0)" } ?? "nil"), df's \(df.map { "\($0)" } ?? "nil")"
    }

    @Test func rootFilesystem() throws {
        try Self.expectParity("/")
        try Self.expectBinaryParity("/")
    }

    @Test func homeDirectory() throws {
        let home = try #require(ProcessEnvironment.homeDirectory)
        try Self.expectParity(home)
    }

    @Test(Prerequisite.root) func tmpfsOfAnOddSize() throws {
        let scratch = try ScratchDirectory("tmpfs")
        let mount = try scratch.mountTmpfs(at: "odd", options: "size=12345k")
        try Data(count: 3_333_333).write(to: URL(fileURLWithPath: mount + "/filler"))
        try Self.expectParity(mount)
        try Self.expectBinaryParity(mount)
        let df = try DiskFree.of(mount)
        #expect(df.percent > 0 && df.percent < 100)
    }

    @Test(Prerequisite.root, Prerequisite.enabled(Prerequisite.hasCommand("mkfs.ext4"), "needs mkfs.ext4 (e2fsprogs)"))
    func ext4WithReservedBlocks() throws {
        let scratch = try ScratchDirectory("ext4")
        let mount = try scratch.mountExt4(at: "disk", megabytes: 64, reservedPercent: 5)
        try Data(count: 7_000_000).write(to: URL(fileURLWithPath: mount + "/filler"))
        sync()
        try Self.expectParity(mount)
        try Self.expectBinaryParity(mount)
        let stats = try Statvfs.of(mount, readOnly: false)
        #expect(stats.reservedBytes > 0)
        #expect(stats.freeBytes != stats.totalBytes - stats.usedBytes, "with a reserve, Free is not Total − Used")
    }

    @Test(Prerequisite.root) func aMountPointWithSpacesAndAPathBelowIt() throws {
        let scratch = try ScratchDirectory("space")
        let mount = try scratch.mountTmpfs(at: "my disk", options: "size=4m")
        try FileManager.default.createDirectory(atPath: mount + "/sub dir/deeper", withIntermediateDirectories: true)
        try Data(count: 1_000_000).write(to: URL(fileURLWithPath: mount + "/sub dir/file"))
        try FileManager.default.createSymbolicLink(atPath: scratch.subpath("link to it"), withDestinationPath: mount + "/sub dir")
        for path in [mount, mount + "/sub dir/deeper", mount + "/sub dir/file", scratch.subpath("link to it")] {
            try Self.expectParity(path)
            try Self.expectBinaryParity(path)
        }
        guard case .measured(let measurement) = PathSampler.sample(scratch.subpath("link to it")) else {
            Issue.record("the symlink could not be sampled")
            return
        }
        #expect(measurement.mountPoint == mount)
        #expect(measurement.path == mount + "/sub dir")
    }

    /// df prints a tab in a mount point as "?"; we give the real name (mountinfo's \011).
    @Test(Prerequisite.root) func aMountPointWithATabAndABackslash() throws {
        let scratch = try ScratchDirectory("tab")
        let mount = try scratch.mountTmpfs(at: "tab\there\\and back", options: "size=4m")
        guard case .measured(let measurement) = PathSampler.sample(mount) else {
            Issue.record("could not sample \(mount)")
            return
        }
        #expect(measurement.mountPoint == mount)
        #expect(measurement.stats.totalBytes == 4 << 20)
    }

    /// A filesystem mounted over another at the same point: the top one counts.
    @Test(Prerequisite.root) func stackedMounts() throws {
        let scratch = try ScratchDirectory("stack")
        try scratch.mountTmpfs(at: "point", options: "size=8m")
        let top = try scratch.mountTmpfs(at: "point", options: "size=2m")
        try Self.expectParity(top)
        let stats = try Statvfs.of(top, readOnly: false)
        #expect(stats.totalBytes == 2 << 20)
    }
}
