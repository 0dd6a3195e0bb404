import Foundation
import Testing
import UsedSpaceCore
import UsedSpaceSystem

/// QuotaReader on a real loop-mounted btrfs with qgroups: the subvolume's limit and what
/// counts against it, as `btrfs qgroup show` says; no quota where none is set or quotas are
/// off; and on a filesystem without quota support, none (quotactl refuses, nothing breaks).
@Suite(.serialized, BtrfsMount.prerequisite)
struct QuotaReaderTests {
    static func read(_ path: String, _ mount: BtrfsMount) -> [Quota] {
        QuotaReader.read(at: path, fileSystemType: "btrfs", sysfs: BtrfsSysfs.find(for: path))
    }

    /// `btrfs qgroup show --raw`'s referenced and exclusive bytes of a qgroup.
    static func shown(_ qgroup: String, _ mount: BtrfsMount) throws -> (referenced: UInt64, exclusive: UInt64) {
        let text = try CommandRunner.shell("btrfs qgroup show --raw \(quoted(mount.mountPoint))")
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.first.map(String.init) == qgroup, fields.count >= 3, let referenced = UInt64(fields[1]), let exclusive = UInt64(fields[2]) {
                return (referenced, exclusive)
            }
        }
        throw HarnessFailure("no qgroup \(qgroup) in: \(text)")
    }

    @Test func aSubvolumesQgroupLimitIsItsQuota() throws {
        let mount = try BtrfsMount("quota", sizes: [1200])
        let home = mount.mountPoint + "/home"
        try CommandRunner.shell("btrfs subvolume create \(quoted(home)) >/dev/null")
        // Quotas off: nothing to read.
        #expect(Self.read(home, mount) == [])

        try CommandRunner.shell("btrfs quota enable \(quoted(mount.mountPoint)) && btrfs qgroup limit 50M \(quoted(home))")
        try Data(count: 20 << 20).write(to: URL(fileURLWithPath: home + "/data"))
        try mount.sync()
        let quotas = Self.read(home, mount)
        let quota = try #require(quotas.first, "\(quotas)")
        #expect(quotas.count == 1 && quota.kind == .btrfsReferenced && quota.limitBytes == 50 << 20)
        #expect(try quota.usedBytes == Self.shown("0/256", mount).referenced)
        #expect(quota.usedBytes >= 20 << 20)

        // The filesystem's top level is another subvolume, with no limit.
        #expect(Self.read(mount.mountPoint, mount) == [])

        // An exclusive limit as well; then none.
        try CommandRunner.shell("btrfs qgroup limit -e 40M \(quoted(home))")
        #expect(Self.read(home, mount).map(\.kind) == [.btrfsReferenced, .btrfsExclusive])
        try CommandRunner.shell("btrfs qgroup limit none \(quoted(home)) && btrfs qgroup limit -e none \(quoted(home))")
        #expect(Self.read(home, mount) == [])
    }

    @Test func withoutQuotaSupportThereIsNone() throws {
        let scratch = try ScratchDirectory("quota-tmpfs")
        let tmpfs = try scratch.mountTmpfs(at: "fs", options: "size=10m")
        #expect(QuotaReader.read(at: tmpfs, fileSystemType: "tmpfs", sysfs: nil) == [])
        #expect(QuotaReader.read(at: tmpfs + "/missing", fileSystemType: "tmpfs", sysfs: nil) == [])
    }
}
