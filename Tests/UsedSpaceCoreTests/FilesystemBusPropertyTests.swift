import Testing
@testable import UsedSpaceCore

/// What a filesystem's object on the session bus says (docs/dbus.md): each property's value
/// has the type its vtable declares, a publish changes only what moved, and the level a
/// desktop colours by is the one the daemon decided (FilesystemLevelTests).
@Suite struct FilesystemBusPropertyTests {
    /// 1,000 blocks of 1 MB, none reserved: the used share is used / 1,000.
    static func snapshot(used: UInt64, state: SnapshotState = .fresh, seq: UInt64 = 1) -> Snapshot {
        let stats = FilesystemStats(blockSize: 1_000_000, totalBlocks: 1000, freeBlocks: 1000 - used, availableBlocks: 1000 - used)
        return Snapshot(path: "/data", mountPoint: "/data", fileSystemType: "ext4", stats: stats, state: state, seq: seq,
                        sampledAt: Timestamp(secondsSinceEpoch: 1_700_000_000), source: .daemon,
                        error: state == .stale ? "statvfs did not answer within 5 s" : nil)
    }

    static func state(_ snapshot: Snapshot) -> FilesystemBusState {
        FilesystemBusState(watchedPath: "/data", snapshot: snapshot, label: "data", limits: SeverityPolicy())
    }

    static var failed: Snapshot {
        Snapshot(path: "/media/usb", mountPoint: nil, fileSystemType: nil, stats: nil, state: .failed, seq: 3,
                 sampledAt: Timestamp(secondsSinceEpoch: 0), source: .daemon, error: "/media/usb: gone")
    }

    @Test(arguments: FilesystemBusProperty.allCases)
    func eachValueHasTheDeclaredType(property: FilesystemBusProperty) {
        var full = Self.snapshot(used: 950)
        full.fastFill = FastFill(bytesPerSecond: 50_000_000, secondsToFull: 60, sustainedSeconds: 30)
        full.timeToFull = TimeToFull(lowerSeconds: 3_600, upperSeconds: 7_200)
        for snapshot in [full, Self.failed] {
            #expect(property.value(of: Self.state(snapshot)).typeCode == property.typeCode, "\(snapshot.state)")
        }
    }

    @Test func aFailedFilesystemSaysUnknownWithTheDocumentedSentinels() {
        let state = Self.state(Self.failed)
        #expect(FilesystemBusProperty.usedPercent.value(of: state) == .int32(-1))
        #expect(FilesystemBusProperty.timeToFullLowerSeconds.value(of: state) == .int64(-1))
        #expect(FilesystemBusProperty.fastFillSecondsToFull.value(of: state) == .int64(-1))
        #expect(FilesystemBusProperty.state.value(of: state) == .string("failed"))
        #expect(FilesystemBusProperty.error.value(of: state) == .string("/media/usb: gone"))
    }

    @Test func aPublishChangesOnlyWhatMoved() {
        let before = Self.state(Self.snapshot(used: 400, seq: 1))
        #expect(FilesystemBusProperty.changed(from: before, to: before).isEmpty)

        let after = Self.state(Self.snapshot(used: 401, seq: 2))
        #expect(FilesystemBusProperty.changed(from: before, to: after)
                == [.usedRate, .usedPercent, .usedBytes, .freeBytes, .seq])

        let stale = Self.state(Self.snapshot(used: 400, state: .stale, seq: 2))
        #expect(FilesystemBusProperty.changed(from: before, to: stale) == [.state, .error, .seq])
    }

    @Test func thePathNamesTheObjectAndNeverChanges() {
        var moved = Self.state(Self.snapshot(used: 400))
        moved.watchedPath = "/elsewhere"
        #expect(!FilesystemBusProperty.changed(from: Self.state(Self.snapshot(used: 400)), to: moved).contains(.path))
        #expect(FilesystemBusProperty.allCases.filter(\.isConstant) == [.path])
    }

    @Test func theLevelIsTheOneTheSnapshotCarries() {
        var warned = Self.snapshot(used: 795)
        warned.level = .warning
        #expect(Self.state(warned).severity == .warning)
        #expect(FilesystemBusProperty.severity.value(of: Self.state(warned)) == .string("warning"))
        // Restored from an older state file, without one: decided as a first publish would.
        #expect(Self.state(Self.snapshot(used: 795)).severity == .normal)
        #expect(Self.state(Self.snapshot(used: 850)).severity == .warning)
    }
}
