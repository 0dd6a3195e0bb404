import Testing
@testable import UsedSpaceCore

/// The sysfs parser, the f_fsid match and the metadata levels, on the files of real
/// filesystems (copied from /sys/fs/btrfs on Linux 6.18, btrfs-progs 6.2) and on broken ones.
/// Expected figures are those `btrfs filesystem usage -b` printed for the same filesystems.
@Suite struct BtrfsAllocationTests {
    /// Fixed file contents, as a directory of sysfs would give them.
    struct Files: BtrfsSysfsSource {
        var files: [String: String]
        var directories: [String: [String]]

        func text(_ relativePath: String) -> String? { files[relativePath] }
        func entries(_ relativePath: String) -> [String] { directories[relativePath] ?? [] }

        /// `allocation/<kind>/{total_bytes,bytes_used,disk_total}` (and the profile directory)
        /// for each kind, the reserve, the metadata chunk size and the devices' sizes.
        init(kinds: [(String, profile: String, total: UInt64, used: UInt64, disk: UInt64)], reserve: UInt64 = 5_767_168,
             chunk: UInt64 = 268_435_456, devices: [(String, sectors: UInt64)]) {
            files = ["allocation/global_rsv_size": "\(reserve)\n"]
            directories = ["allocation": kinds.map(\.0) + ["global_rsv_reserved", "global_rsv_size"], "devices": devices.map(\.0)]
            for kind in kinds {
                files["allocation/\(kind.0)/total_bytes"] = "\(kind.total)\n"
                files["allocation/\(kind.0)/bytes_used"] = "\(kind.used)\n"
                files["allocation/\(kind.0)/disk_total"] = "\(kind.disk)\n"
                files["allocation/\(kind.0)/chunk_size"] = "\(kind.0 == "data" ? 10_737_418_240 : chunk)\n"
                directories["allocation/\(kind.0)"] = ["bytes_used", "disk_total", "flags", "total_bytes", kind.profile]
            }
            for device in devices { files["devices/\(device.0)/size"] = "\(device.sectors)\n" }
        }
    }

    /// A fresh 512 MiB filesystem: data single, metadata and system DUP (mkfs.btrfs's defaults).
    static let single = Files(kinds: [("data", "single", 8_388_608, 0, 8_388_608), ("metadata", "dup", 33_554_432, 131_072, 67_108_864),
                                      ("system", "dup", 8_388_608, 16_384, 16_777_216)], devices: [("loop0", 1_048_576)])
    static let singleStats = FilesystemStats(blockSize: 4096, totalBlocks: 131_072, freeBlocks: 129_592, availableBlocks: 110_336)

    /// RAID1 for everything over two 1 GiB loop devices.
    static let raid1 = Files(kinds: [("data", "raid1", 107_347_968, 0, 214_695_936), ("metadata", "raid1", 107_347_968, 131_072, 214_695_936),
                                     ("system", "raid1", 8_388_608, 16_384, 16_777_216)],
                             devices: [("loop0", 2_097_152), ("loop1", 2_097_152)])
    static let raid1Stats = FilesystemStats(blockSize: 4096, totalBlocks: 262_144, freeBlocks: 260_700, availableBlocks: 233_632)

    @Test func aSingleDeviceReadsAsBtrfsFilesystemUsageShowsIt() throws {
        let allocation = try BtrfsAllocationParser.parse(Self.single, statistics: Self.singleStats)
        // btrfs filesystem usage -b: Device size 536870912, allocated 92274688, unallocated 444596224.
        #expect(allocation.deviceBytes == 536_870_912)
        #expect(allocation.allocatedBytes == 92_274_688)
        #expect(allocation.unallocatedBytes == 444_596_224)
        #expect(allocation.data.ratio == 1.0 && allocation.metadata.ratio == 2.0)
        #expect(allocation.data.profiles == ["single"] && allocation.metadata.profiles == ["dup"])
        #expect(allocation.globalReserveBytes == 5_767_168)
        // A metadata chunk: 256 MiB capped at a tenth of 512 MiB (53687091), two copies.
        #expect(allocation.metadataChunkDiskBytes == 53_687_091 * 2)
        #expect(allocation.metadataCanGrow && allocation.metadataLevel == .ok && !allocation.isMixed)
    }

    @Test func raid1OverTwoDevices() throws {
        let allocation = try BtrfsAllocationParser.parse(Self.raid1, statistics: Self.raid1Stats)
        // btrfs filesystem usage -b: 2147483648, 446169088, 1701314560; ratios 2.00.
        #expect(allocation.deviceBytes == 2_147_483_648)
        #expect(allocation.allocatedBytes == 446_169_088)
        #expect(allocation.unallocatedBytes == 1_701_314_560)
        #expect(allocation.data.ratio == 2.0 && allocation.metadata.ratio == 2.0 && allocation.data.profiles == ["raid1"])
    }

    /// After `btrfs filesystem resize 1:-300M`, the filesystem uses 300 MiB less than its
    /// device: usage -b said Device size 1832910848 (slack 314572800), unallocated 1386741760,
    /// and statfs's f_blocks was 223744 (1832910848 / 2 copies / 4096).
    @Test func aFilesystemSmallerThanItsDevicesTakesItsSizeFromStatfs() throws {
        let resized = FilesystemStats(blockSize: 4096, totalBlocks: 223_744, freeBlocks: 222_300, availableBlocks: 156_832)
        let allocation = try BtrfsAllocationParser.parse(Self.raid1, statistics: resized)
        #expect(allocation.deviceBytes == 1_832_910_848)
        #expect(allocation.unallocatedBytes == 1_386_741_760)
        // Without statfs's figures the block devices are all there is to go by.
        #expect(try BtrfsAllocationParser.parse(Self.raid1, statistics: nil).deviceBytes == 2_147_483_648)
    }

    /// statfs rounds the size down to whole blocks after dividing by the copies: a device
    /// size within that rounding is not slack.
    @Test func roundingIsNotSlack() throws {
        // f_blocks 262143 with two copies: the filesystem has 2147475456 or 2147479552 bytes,
        // while its devices have 2147483648: slack, and the lower of the two is taken.
        let odd = FilesystemStats(blockSize: 4096, totalBlocks: 262_143, freeBlocks: 1, availableBlocks: 1)
        #expect(try BtrfsAllocationParser.parse(Self.raid1, statistics: odd).deviceBytes == 2_147_475_456)
        let withinRounding = Files(kinds: [("data", "raid1", 1, 0, 2), ("metadata", "raid1", 1, 0, 2), ("system", "raid1", 1, 0, 2)],
                                   devices: [("a", 1_048_576), ("b", 1_048_584)])  // 4 KiB more than 2 × 512 MiB
        let stats = FilesystemStats(blockSize: 4096, totalBlocks: 131_072, freeBlocks: 1, availableBlocks: 1)
        #expect(try BtrfsAllocationParser.parse(withinRounding, statistics: stats).deviceBytes == 1_073_745_920)
    }

    @Test func mixedBlockGroupsHaveNoSeparateMetadata() throws {
        var files = Files(kinds: [("mixed", "single", 50_331_648, 1_000_000, 50_331_648), ("system", "single", 4_194_304, 4096, 4_194_304)],
                          devices: [("loop3", 204_800)])
        files.files["allocation/mixed/chunk_size"] = nil
        let allocation = try BtrfsAllocationParser.parse(files, statistics: nil)
        #expect(allocation.isMixed && allocation.metadataCanGrow && allocation.metadataLevel == .ok)
        #expect(allocation.data.totalBytes == 50_331_648 && allocation.metadata.totalBytes == 0)
        #expect(allocation.unallocatedBytes == 104_857_600 - 50_331_648 - 4_194_304)
    }

    @Test func brokenFilesAreTypedErrorsNamingTheFile() {
        var files = Self.single
        files.files["allocation/metadata/bytes_used"] = "12x\n"
        #expect(throws: BtrfsAllocationParser.Failure.notANumber("allocation/metadata/bytes_used", text: "12x\n")) {
            try BtrfsAllocationParser.parse(files, statistics: nil)
        }
        files = Self.single
        files.files["allocation/global_rsv_size"] = nil
        #expect(throws: BtrfsAllocationParser.Failure.unreadable("allocation/global_rsv_size")) { try BtrfsAllocationParser.parse(files, statistics: nil) }
        files = Self.single
        files.directories["devices"] = []
        #expect(throws: BtrfsAllocationParser.Failure.noDevices) { try BtrfsAllocationParser.parse(files, statistics: nil) }
        for hostile in ["", "\n", "-1\n", "18446744073709551616\n", "1 2\n", "0x10\n", String(repeating: "9", count: 5000), "12\n\n", "١٢\n"] {
            files = Self.single
            files.files["allocation/data/total_bytes"] = hostile
            #expect(throws: BtrfsAllocationParser.Failure.self) { try BtrfsAllocationParser.parse(files, statistics: nil) }
        }
        let message = BtrfsAllocationParser.Failure.notANumber("f", text: "\u{1B}[2J" + String(repeating: "x", count: 100)).description
        #expect(!message.contains("\u{1B}") && message.count < 80, "\(message)")
    }

    /// Sizes that do not fit in 64 bits saturate instead of trapping.
    @Test func hugeFiguresSaturate() throws {
        let files = Files(kinds: [("data", "single", .max, .max, .max), ("metadata", "dup", .max, 0, .max), ("system", "dup", 1, 0, 2)],
                          chunk: .max, devices: [("a", .max), ("b", .max)])
        let allocation = try BtrfsAllocationParser.parse(files, statistics: nil)
        #expect(allocation.deviceBytes == .max && allocation.allocatedBytes == .max && allocation.unallocatedBytes == 0)
    }

    // MARK: - Which directory

    /// Pairs seen on this machine: the UUID (the directory's name) and statvfs's f_fsid of
    /// the filesystem's top level (subvolume 5).
    static let seen: [(uuid: String, fsid: UInt64)] = [
        ("a692204e-f5b8-4d3a-a768-c3bd19626eee", 0xecda_23d1_01fa_e3f3),
        ("aba85e6b-5817-4a44-9e2d-098dc9d55bc8", 0x91c2_1189_3585_57e6),
    ]

    @Test func theFsidOfAMountLeadsToItsDirectory() {
        let names = Self.seen.map(\.uuid) + ["features"]
        for (uuid, fsid) in Self.seen {
            #expect(BtrfsFileSystemID.directory(for: fsid, among: names) == uuid)
            #expect(BtrfsFileSystemID.subvolume(of: fsid, uuid: BtrfsFileSystemID.uuidBytes(uuid)!) == 5)
        }
        // A subvolume (id 257) of the first: f_fsid's high word carries 5 ^ 257 more.
        #expect(BtrfsFileSystemID.directory(for: 0xecda_23d1_01fa_e3f3 ^ (UInt64(5 ^ 257) << 32), among: names) == Self.seen[0].uuid)
        // Not a btrfs f_fsid at all (a tmpfs's is 0), or an id below 256 other than 5.
        #expect(BtrfsFileSystemID.directory(for: 0, among: names) == nil)
        #expect(BtrfsFileSystemID.directory(for: 0xecda_23d1_01fa_e3f3 ^ (UInt64(5 ^ 7) << 32), among: names) == nil)
    }

    @Test func anAmbiguousOrMalformedDirectoryIsNeverGuessed() {
        let uuid = Self.seen[0].uuid
        #expect(BtrfsFileSystemID.directory(for: Self.seen[0].fsid, among: [uuid, uuid]) == nil)
        for name in ["", "features", "a692204e-f5b8-4d3a-a768-c3bd19626ee", "a692204e-f5b8-4d3a-a768-c3bd19626eeg", "a692204ef5b84d3aa768c3bd19626eee0000",
                     "../../../etc/passwd", String(repeating: "a", count: 10_000)] {
            #expect(BtrfsFileSystemID.directory(for: Self.seen[0].fsid, among: [name]) == nil, "\(name.prefix(40))")
        }
        #expect(BtrfsFileSystemID.uuidBytes(uuid.uppercased()) == BtrfsFileSystemID.uuidBytes(uuid))
    }

    // MARK: - The metadata's level

    /// The filesystem of docs/fast-fill.md's experiment, as it stood when df still showed
    /// 454 MB available: 1 MB unallocated, metadata (single) 115 MB of which 100 MB used,
    /// reserve 5.5 MB. 9.5 MB of 115 is 8.3 % free beyond the reserve: below 10 %, full.
    static func exhausted(metadataUsed: UInt64, unallocated: UInt64 = 1_048_576) -> BtrfsAllocation {
        let metadataTotal: UInt64 = 115_000_000
        let data = BtrfsAllocation.Chunks(totalBytes: 904_000_000, usedBytes: 450_000_000, diskTotalBytes: 904_000_000, profiles: ["single"])
        let metadata = BtrfsAllocation.Chunks(totalBytes: metadataTotal, usedBytes: metadataUsed, diskTotalBytes: metadataTotal, profiles: ["single"])
        let system = BtrfsAllocation.Chunks(totalBytes: 4_194_304, usedBytes: 16_384, diskTotalBytes: 4_194_304, profiles: ["single"])
        return BtrfsAllocation(deviceBytes: 904_000_000 + metadataTotal + 4_194_304 + unallocated, data: data, metadata: metadata,
                               system: system, globalReserveBytes: 5_500_000, metadataChunkDiskBytes: 107_374_182)
    }

    @Test func metadataThatCannotGrowIsLowThenFull() {
        let policy = BtrfsMetadataPolicy()
        // Free beyond the reserve: 115 − used − 5.5 (MB); low under 28.75, full under 11.5.
        #expect(policy.level(of: Self.exhausted(metadataUsed: 80_000_000), previous: .ok) == .ok)       // 29.5 MB
        #expect(policy.level(of: Self.exhausted(metadataUsed: 81_000_000), previous: .ok) == .low)      // 28.5 MB
        #expect(policy.level(of: Self.exhausted(metadataUsed: 98_000_000), previous: .ok) == .low)      // 11.5 MB: not below
        #expect(policy.level(of: Self.exhausted(metadataUsed: 98_000_001), previous: .ok) == .full)
        #expect(policy.level(of: Self.exhausted(metadataUsed: 100_000_000), previous: .ok) == .full)
        #expect(policy.level(of: Self.exhausted(metadataUsed: 115_000_000), previous: .ok) == .full)    // over the reserve: 0 left
        // A metadata chunk still fits: whatever the chunks hold, the metadata can grow.
        #expect(policy.level(of: Self.exhausted(metadataUsed: 110_000_000, unallocated: 107_374_182), previous: .full) == .ok)
        #expect(Self.exhausted(metadataUsed: 0, unallocated: 107_374_181).metadataCanGrow == false)
    }

    @Test func aLevelIsKeptUntilClearlyLeft() {
        let policy = BtrfsMetadataPolicy()
        // Full: kept up to 12 % free (13.8 MB), left above it.
        #expect(policy.level(of: Self.exhausted(metadataUsed: 96_000_000), previous: .full) == .full)  // 13.5 MB
        #expect(policy.level(of: Self.exhausted(metadataUsed: 95_500_000), previous: .full) == .low)   // 14 MB
        #expect(policy.level(of: Self.exhausted(metadataUsed: 96_000_000), previous: .low) == .low)
        // Low: kept up to 27 % (31.05 MB).
        #expect(policy.level(of: Self.exhausted(metadataUsed: 79_000_000), previous: .low) == .low)    // 30.5 MB
        #expect(policy.level(of: Self.exhausted(metadataUsed: 78_000_000), previous: .low) == .ok)     // 31.5 MB
        #expect(policy.level(of: Self.exhausted(metadataUsed: 79_000_000), previous: .ok) == .ok)
    }

    // MARK: - What is news

    static func sample(_ btrfs: BtrfsAllocation?) -> Sample {
        var measurement = PublishPolicyTests.measurement(used: 500_000, usable: 1_000_000, type: "btrfs")
        measurement.btrfs = btrfs
        return .measured(measurement)
    }

    /// A figure that moved by the threshold's share of the devices (0.01 % of 1,024,242,880
    /// bytes is 102,424.288) publishes; less does not; the level always does.
    @Test func aBtrfsFigureIsNewsFromTheThresholdOn() {
        let policy = PublishPolicy()
        var before = Self.exhausted(metadataUsed: 50_000_000)
        #expect(before.deviceBytes == 1_024_242_880)
        let previous = Snapshot(PublishPolicyTests.measurement(used: 500_000, usable: 1_000_000, type: "btrfs"), seq: 1, source: .daemon)
        var published = previous
        published.btrfs = before
        var after = before
        after.metadata.usedBytes += 102_424
        #expect(policy.decide(previous: published, sample: Self.sample(after)) == .noData)
        after.metadata.usedBytes += 1
        #expect(policy.decide(previous: published, sample: Self.sample(after)) == .newData)
        after = before
        after.metadataLevel = .low
        #expect(policy.decide(previous: published, sample: Self.sample(after)) == .newData)
        after = before
        after.metadata.profiles = ["dup"]
        #expect(policy.decide(previous: published, sample: Self.sample(after)) == .newData)
        #expect(policy.decide(previous: published, sample: Self.sample(nil)) == .newData)
        #expect(policy.decide(previous: previous, sample: Self.sample(before)) == .newData)
        before.globalReserveBytes += 102_425
        #expect(policy.decide(previous: published, sample: Self.sample(before)) == .newData)
    }

    /// The publisher keeps the metadata's level with its hysteresis from one sample to the next.
    @Test func thePublisherCarriesTheLevelFromSampleToSample() {
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        publisher.accept(Self.sample(Self.exhausted(metadataUsed: 100_000_000)))
        #expect(publisher.current?.btrfs?.metadataLevel == .full)
        // 13.5 MB free: above 10 % but within the two points that keep "full".
        publisher.accept(Self.sample(Self.exhausted(metadataUsed: 96_000_000)))
        #expect(publisher.current?.btrfs?.metadataLevel == .full)
        publisher.accept(Self.sample(Self.exhausted(metadataUsed: 95_500_000)))
        #expect(publisher.current?.btrfs?.metadataLevel == .low)
    }
}
