import Testing
@testable import UsedSpaceCore

/// The level, decided in one place (FilesystemLevel): the configured limits, else list's
/// 80 % and 90 %, with one point of hysteresis from the previous level, raised by a fast fill
/// or btrfs metadata; and which level a client's view shows (ShownLevel).
@Suite struct FilesystemLevelTests {
    /// 1,000 blocks of 1 MB, none reserved: the used share is used / 1,000.
    static func snapshot(used: UInt64, state: SnapshotState = .fresh) -> Snapshot {
        let stats = FilesystemStats(blockSize: 1_000_000, totalBlocks: 1000, freeBlocks: 1000 - used, availableBlocks: 1000 - used)
        return Snapshot(path: "/data", mountPoint: "/data", fileSystemType: "ext4", stats: stats, state: state, seq: 1,
                        sampledAt: Timestamp(secondsSinceEpoch: 1_700_000_000), source: .daemon)
    }

    static let warnAt80 = try! Configuration.parse("[bar]\nwarn = 80%\n").bar.severity

    @Test func withoutLimitsTheLevelIsLists() {
        let none = SeverityPolicy()
        #expect(FilesystemLevel.decide(Self.snapshot(used: 790), limits: none, previous: nil) == .normal)
        #expect(FilesystemLevel.decide(Self.snapshot(used: 850), limits: none, previous: nil) == .warning)
        #expect(FilesystemLevel.decide(Self.snapshot(used: 950), limits: none, previous: nil) == .critical)
    }

    /// The issue's case: 81 %, then 79.5 % (still a warning: one point of slack), then 78.5 %.
    @Test func oneStepOfHysteresisFromThePreviousLevel() {
        var level: Severity? = nil
        var seen: [Severity] = []
        for used: UInt64 in [810, 795, 785] {
            level = FilesystemLevel.decide(Self.snapshot(used: used), limits: Self.warnAt80, previous: level)
            seen.append(level!)
        }
        #expect(seen == [.warning, .warning, .normal])
        // With no history (a one-shot, a first publish), 79.5 % is normal.
        #expect(FilesystemLevel.decide(Self.snapshot(used: 795), limits: Self.warnAt80, previous: nil) == .normal)
    }

    @Test func configuredLimitsWinAndAFastFillOrBtrfsMetadataRaisesTheLevel() throws {
        let limits = try Configuration.parse("[bar]\nwarn = 50%\n").bar.severity
        #expect(FilesystemLevel.decide(Self.snapshot(used: 600), limits: limits, previous: nil) == .warning)
        // The critical level it leaves unset is list's.
        #expect(FilesystemLevel.decide(Self.snapshot(used: 950), limits: limits, previous: nil) == .critical)

        var filling = Self.snapshot(used: 100)
        filling.fastFill = FastFill(bytesPerSecond: 100_000_000, secondsToFull: 9, sustainedSeconds: 20)
        #expect(FilesystemLevel.decide(filling, limits: limits, previous: nil) == .critical)
        filling.fastFill = FastFill(bytesPerSecond: 1_000_000, secondsToFull: 900, sustainedSeconds: 20)
        #expect(FilesystemLevel.decide(filling, limits: limits, previous: nil) == .warning)
        // A fill counts on fresh numbers only.
        filling.state = .stale
        #expect(FilesystemLevel.decide(filling, limits: limits, previous: nil) == .normal)
    }

    @Test func withoutNumbersTheLevelStays() {
        var failed = Self.snapshot(used: 0, state: .failed)
        failed.stats = nil
        #expect(FilesystemLevel.decide(failed, limits: Self.warnAt80, previous: .warning) == .warning)
        #expect(FilesystemLevel.decide(failed, limits: Self.warnAt80, previous: nil) == .normal)
    }

    @Test func aSnapshotWithoutALevelIsDecidedAsAFirstPublishWould() {
        var carried = Self.snapshot(used: 795)
        #expect(FilesystemLevel.carried(by: carried, limits: Self.warnAt80) == .normal)
        carried.level = .warning
        #expect(FilesystemLevel.carried(by: carried, limits: Self.warnAt80) == .warning)
    }

    @Test func limitsAreComparedByValue() throws {
        let written = try Configuration.parse("[bar]\nwarn = 80.0%\ncritical = 90%\nhysteresis = 1%\n").bar.severity
        #expect(written.judgesLike(SeverityPolicy()))
        #expect(!Self.warnAt80.judgesLike(try Configuration.parse("[bar]\nwarn = 70%\n").bar.severity))
        #expect(!SeverityPolicy().judgesLike(try Configuration.parse("[bar]\nhysteresis = 2%\n").bar.severity))
        #expect(!SeverityPolicy().judgesLike(try Configuration.parse("[bar]\ncritical = 5GB\n").bar.severity))
    }

    /// A view shows the daemon's level, unless its own command line judges otherwise.
    @Test func aViewShowsTheDaemonsLevelUnlessItsCommandLineJudgesOtherwise() throws {
        let configuration = try Configuration.parse("[bar]\nwarn = 80%\n")
        var snapshot = Self.snapshot(used: 795)
        snapshot.level = .warning
        // No limits on the command line, or the same ones: the daemon's, whatever the history.
        let plain = ShownLevel(configuration: configuration, commandLine: [], home: nil)
        #expect(plain.level(of: snapshot, watchedPath: "/data", previous: nil) == .warning)
        let same = ShownLevel(configuration: configuration, commandLine: [("warn", "80%"), ("critical", "90%")], home: nil)
        #expect(same.level(of: snapshot, watchedPath: "/data", previous: .normal) == .warning)
        // Other limits: judged by them, from this view's own history.
        let own = ShownLevel(configuration: configuration, commandLine: [("warn", "79%")], home: nil)
        #expect(own.level(of: snapshot, watchedPath: "/data", previous: nil) == .warning)
        let higher = ShownLevel(configuration: configuration, commandLine: [("warn", "85%")], home: nil)
        #expect(higher.level(of: snapshot, watchedPath: "/data", previous: nil) == .normal)
        // A [filesystem] section's limits are the configuration's for that filesystem.
        let sectioned = try Configuration.parse("[bar]\nwarn = 80%\n\n[filesystem /data]\nwarn = 85%\n")
        #expect(ShownLevel(configuration: sectioned, commandLine: [("warn", "85%")], home: nil)
            .level(of: snapshot, watchedPath: "/data", previous: nil) == .warning)
        // No daemon's level: judged here; without the configuration read, not known.
        snapshot.level = nil
        #expect(plain.level(of: snapshot, watchedPath: "/data", previous: nil) == .normal)
        #expect(plain.level(of: snapshot, watchedPath: "/data", previous: .warning) == .warning)
        #expect(ShownLevel(configuration: nil, commandLine: [], home: nil).level(of: snapshot, watchedPath: "/data", previous: nil) == nil)
    }

    /// The snapshot line and the state file carry the level; one without it (an older daemon,
    /// an older file) reads as before.
    @Test func theCodecCarriesTheLevel() throws {
        var snapshot = Self.snapshot(used: 795)
        snapshot.level = .warning
        let line = SnapshotCodec.encode(snapshot)
        #expect(line.contains(#""level":"warning""#))
        #expect(try SnapshotCodec.decode(line, source: .daemon).level == .warning)
        let older = line.replacingOccurrences(of: #","level":"warning""#, with: "")
        #expect(try SnapshotCodec.decode(older, source: .daemon).level == nil)
        #expect(throws: SnapshotCodec.Failure.invalid("level", reason: "is not normal, warning or critical")) {
            try SnapshotCodec.decode(line.replacingOccurrences(of: #""level":"warning""#, with: #""level":"purple""#), source: .daemon)
        }
        // JSON says it as `severity`.
        #expect(JSONRenderer.render(snapshot).hasSuffix(#","severity":"warning"}"#))
        #expect(!JSONRenderer.render(Self.snapshot(used: 795)).contains("severity"))
    }
}
