import Testing
@testable import UsedSpaceCore

/// Quotas: which one binds before the filesystem does, its figures as df's rules see them,
/// the btrfs qgroup files (as sysfs gave them on 6.x for a subvolume with `btrfs qgroup
/// limit 50M` and `-e 30M`), and quotactl's `if_dqblk` answer (made to <linux/quota.h>'s
/// layout: no kernel here has quota support).
@Suite struct QuotaTests {
    struct Files: BtrfsSysfsSource {
        var files: [String: String]
        func text(_ relativePath: String) -> String? { files[relativePath] }
        func entries(_ relativePath: String) -> [String] { [] }
    }

    /// The 1.2 GB btrfs as `df -B1` showed it: 58,687,488 used, 1,062,240,256 available (6 %).
    static let filesystem = FilesystemStats(blockSize: 1, totalBlocks: 1_258_291_200, freeBlocks: 1_199_603_712, availableBlocks: 1_062_240_256)

    static func qgroup(flags: UInt64, referenced: UInt64 = 52_412_416, maxReferenced: UInt64 = 52_428_800,
                       exclusive: UInt64 = 52_412_416, maxExclusive: UInt64 = 0, enabled: String = "1\n") -> Files {
        Files(files: ["qgroups/enabled": enabled,
                      "qgroups/0_256/limit_flags": "\(flags)\n",
                      "qgroups/0_256/referenced": "\(referenced)\n", "qgroups/0_256/max_referenced": "\(maxReferenced)\n",
                      "qgroups/0_256/exclusive": "\(exclusive)\n", "qgroups/0_256/max_exclusive": "\(maxExclusive)\n"])
    }

    @Test func aQuotaWithLessRoomThanTheFilesystemBinds() {
        let quota = Quota(kind: .btrfsReferenced, usedBytes: 52_412_416, limitBytes: 52_428_800)
        #expect(Quota.binding([quota], on: Self.filesystem) == quota)
        // df said 6 %; the quota is full: df's rule on its figures says 100 %.
        #expect(Self.filesystem.usedPercent == 6)
        #expect(quota.asFilesystemStats().usedPercent == 100)
        #expect(quota.asFilesystemStats().freeBytes == 16_384)

        let roomy = Quota(kind: .user, usedBytes: 1_000, limitBytes: 10_000_000_000)
        #expect(Quota.binding([roomy], on: Self.filesystem) == nil)
        #expect(Quota.binding([], on: Self.filesystem) == nil)
        // The tightest of several.
        let exclusive = Quota(kind: .btrfsExclusive, usedBytes: 52_412_416, limitBytes: 60_000_000)
        #expect(Quota.binding([exclusive, roomy, quota], on: Self.filesystem) == quota)
    }

    @Test func aQuotaPassedCountsAsFull() {
        let over = Quota(kind: .btrfsReferenced, usedBytes: 53_000_000, limitBytes: 52_428_800)
        #expect(over.availableBytes == 0)
        let stats = over.asFilesystemStats()
        #expect(stats.usedBytes == 53_000_000 && stats.freeBytes == 0 && stats.usedPercent == 100)
    }

    @Test func halfUsedIsFiftyPercentAsDfWouldSay() {
        let stats = Quota(kind: .project, usedBytes: 500, limitBytes: 1_000).asFilesystemStats()
        #expect(stats.usedPercent == 50 && stats.totalBytes == 1_000 && stats.reservedBytes == 0)
    }

    @Test func theQgroupsLimitsAreReadAsTheFlagsSay() {
        let referenced = BtrfsQgroupParser.read(subvolume: 256, from: Self.qgroup(flags: 1))
        #expect(referenced == [Quota(kind: .btrfsReferenced, usedBytes: 52_412_416, limitBytes: 52_428_800)])

        let both = BtrfsQgroupParser.read(subvolume: 256, from: Self.qgroup(flags: 3, maxExclusive: 31_457_280))
        #expect(both?.map(\.kind) == [.btrfsReferenced, .btrfsExclusive])
        #expect(both?.last?.limitBytes == 31_457_280)

        // `btrfs qgroup limit none`: flags off, maxima 0.
        let none = BtrfsQgroupParser.read(subvolume: 256, from: Self.qgroup(flags: 0, maxReferenced: 0))
        #expect(none == [])
    }

    @Test func withoutQuotasOrItsQgroupThereIsNothingToRead() {
        #expect(BtrfsQgroupParser.read(subvolume: 256, from: Files(files: [:])) == nil)
        #expect(BtrfsQgroupParser.read(subvolume: 256, from: Self.qgroup(flags: 1, enabled: "0\n")) == nil)
        #expect(BtrfsQgroupParser.read(subvolume: 257, from: Self.qgroup(flags: 1)) == nil)
    }

    @Test func brokenQgroupFilesAreNotNumbers() {
        var files = Self.qgroup(flags: 1)
        files.files["qgroups/0_256/referenced"] = "lots\n"
        #expect(BtrfsQgroupParser.read(subvolume: 256, from: files) == [])
        files.files["qgroups/0_256/limit_flags"] = "\n"
        #expect(BtrfsQgroupParser.read(subvolume: 256, from: files) == nil)
    }

    /// `struct if_dqblk` as the kernel fills it: eight u64 and a u32, little-endian.
    static func dqblk(hard: UInt64, soft: UInt64, space: UInt64, valid: UInt32 = 0x3f, count: Int = 72) -> [UInt8] {
        var bytes: [UInt8] = []
        for field in [hard, soft, space, 0, 0, 12, 0, 0] { bytes += (0..<8).map { UInt8(truncatingIfNeeded: field >> (8 * $0)) } }
        bytes += (0..<4).map { UInt8(truncatingIfNeeded: valid >> (8 * $0)) } + [0, 0, 0, 0]
        return Array(bytes.prefix(count))
    }

    @Test func quotactlsAnswerIsAQuotaInBytes() throws {
        // 1 GiB hard limit in 1 KiB units, 300 MB used.
        let quota = try QuotactlAnswer.quota(kind: .user, from: Self.dqblk(hard: 1_048_576, soft: 900_000, space: 300_000_000))
        #expect(quota == Quota(kind: .user, usedBytes: 300_000_000, limitBytes: 1_073_741_824))
        // A soft limit alone counts; no limit at all is no quota.
        #expect(try QuotactlAnswer.quota(kind: .group, from: Self.dqblk(hard: 0, soft: 1_000, space: 5))?.limitBytes == 1_024_000)
        #expect(try QuotactlAnswer.quota(kind: .project, from: Self.dqblk(hard: 0, soft: 0, space: 5)) == nil)
        #expect(try QuotactlAnswer.quota(kind: .user, from: Self.dqblk(hard: .max, soft: 0, space: 5))?.limitBytes == .max)
    }

    @Test func aShortOrIncompleteAnswerIsRefused() {
        #expect(throws: QuotactlAnswer.Failure.truncated(40)) {
            try QuotactlAnswer.quota(kind: .user, from: Self.dqblk(hard: 1, soft: 1, space: 1, count: 40))
        }
        #expect(throws: QuotactlAnswer.Failure.incomplete(valid: 1)) {
            try QuotactlAnswer.quota(kind: .user, from: Self.dqblk(hard: 1, soft: 1, space: 1, valid: 1))
        }
    }
}
