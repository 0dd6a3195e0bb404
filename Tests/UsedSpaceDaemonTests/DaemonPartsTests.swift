import Testing
@testable import UsedSpaceCore
@testable import UsedSpaceDaemon

/// The daemon's pure parts: what the journal and systemd are told, the state file, the
/// time-to-full histories, the low-space notifications.
@Suite struct DaemonPartsTests {
    static func snapshot(_ path: String = "/home/u", available: UInt64 = 40, state: SnapshotState = .fresh, seq: UInt64 = 1, at seconds: Int64 = 0) -> Snapshot {
        Snapshot(path: path, mountPoint: "/home", fileSystemType: "ext4",
                 stats: FilesystemStats(blockSize: 1_000_000_000, totalBlocks: 100, freeBlocks: available + 10, availableBlocks: available,
                                        totalInodes: 10, freeInodes: 5),
                 state: state, seq: seq, sampledAt: Timestamp(secondsSinceEpoch: seconds), source: .daemon)
    }

    @Test func aPublishSaysWhatItPublished() {
        #expect(PublishSummary.describe(Self.snapshot()) == "/home (ext4): 55.6% used, 40 GB free of 100 GB (seq 1)")
        var failed = Self.snapshot()
        failed.stats = nil
        failed.state = .failed
        failed.error = "/home/u: permission denied"
        #expect(PublishSummary.describe(failed) == "/home/u: permission denied (seq 1)")
    }

    @Test func theStatusLineLeadsWithAConfigurationProblem() {
        #expect(StatusText.describe([Self.snapshot()]) == "56% used of /home")
        #expect(StatusText.describe([Self.snapshot(), nil], configurationProblem: "c:2: bad; running with the default settings")
                == "configuration refused: c:2: bad; running with the default settings | 56% used of /home; sampling…")
    }

    @Test func twoWatchedPathsOnOneMountPointAreNamedByTheirPaths() {
        let text = StatusText.describe([Self.snapshot("/home/u"), Self.snapshot("/home/u/src", seq: 3), Self.snapshot("/data")])
        #expect(text == "56% used of /home/u; 56% used of /home/u/src; 56% used of /data")
        #expect(StatusText.describe([Self.snapshot("/home/u")]) == "56% used of /home", "alone: its mount point")
    }

    /// The status line changes only when what it says changes: a publish that moves the
    /// figures by less than a tenth of a point sends nothing to the service manager.
    @Test func theStatusLineDoesNotChangeWithEveryPublish() {
        let next = Self.snapshot(seq: 2)
        #expect(StatusText.describe([Self.snapshot(seq: 1)]) == StatusText.describe([next]))
        var stale = next
        stale.state = .stale
        #expect(StatusText.describe([stale]) == "56% used of /home (stale)")
    }

    /// A line in the journal for a publish that changes df's Use% or the state, not for every one.
    @Test func aPublishIsWorthALineWhenUsePercentOrStateChanges() {
        let first = Self.snapshot(available: 40)
        #expect(PublishSummary.isWorthALine(first, after: nil))
        var same = first
        same.seq = 2
        #expect(!PublishSummary.isWorthALine(same, after: first))
        #expect(PublishSummary.isWorthALine(Self.snapshot(available: 30, seq: 3), after: first))
        var stale = same
        stale.state = .stale
        #expect(PublishSummary.isWorthALine(stale, after: same))
    }

    /// The daemon's bar renderings use the configuration's [bar] and [filesystem] settings,
    /// as watch does; text and json stay as the command line would have them by default.
    @Test func theDaemonRendersTheBarFormatsWithTheConfiguration() throws {
        let configuration = try Configuration.parse("[bar]\ntemplate = {free:iec} free\nwarn = 10%\n[filesystem /home/u]\nlabel = \"me \"\ntemplate = {label}{used_percent}%\n")
        let profiles = BarProfiles(configuration: configuration, home: nil)
        let snapshot = Self.snapshot()
        let mine = profiles.options(watchedPath: "/home/u", snapshot: snapshot)
        let bar = SnapshotView.lines(snapshot, format: .rendered(.i3blocks), details: false, options: mine)
        #expect(bar == [##"{"full_text":"me 56%","short_text":"me 56%","color":"#FFFF00"}"##])
        let other = profiles.options(watchedPath: "/data", snapshot: Self.snapshot("/data"))
        #expect(SnapshotView.lines(Self.snapshot("/data"), format: .rendered(.polybar), details: false, options: other) == ["%{F#FFFF00}38G free%{F-}"])
    }

    @Test func theStateFileKeepsTheWatchedPathAndNeverTheConfigurationProblem() throws {
        var shown = Self.snapshot("/real/home", seq: 7)
        shown.configurationProblem = "c:2: bad"
        let text = StateFile.encode([StateFile.Entry(watch: "/home/u", snapshot: shown)], reservedSeq: 7)
        #expect(!text.contains("config_error"))
        let decoded = try StateFile.decode(text)
        #expect(decoded.problems.isEmpty)
        #expect(StateFile.snapshot(for: "/home/u", in: decoded)?.seq == 7)
        #expect(StateFile.snapshot(for: "/real/home", in: decoded) == nil, "a version 2 entry is found by its watched path")
    }

    /// A file written a while before a crash reserved the seqs published since: the snapshot
    /// restored from it comes after all of them.
    @Test func theRestoredSnapshotComesAfterTheReservedSeqs() throws {
        let text = StateFile.encode([StateFile.Entry(watch: "/home/u", snapshot: Self.snapshot(seq: 42))], reservedSeq: 1042)
        let decoded = try StateFile.decode(text)
        #expect(decoded.reservedSeq == 1042)
        #expect(StateFile.snapshot(for: "/home/u", in: decoded)?.seq == 1042)
        let broken = try StateFile.decode(text.replacing("\"seq_reserved\":1042", with: "\"seq_reserved\":-1"))
        #expect(broken.reservedSeq == 0 && broken.problems.count == 1)
        #expect(StateFile.snapshot(for: "/home/u", in: broken)?.seq == 42)
    }

    @Test func aVersionOneFileIsFoundByTheSnapshotsPath() throws {
        let v1 = "{\"format\":\"usedspace-state\",\"version\":1,\"snapshots\":[\n" + SnapshotCodec.encode(Self.snapshot("/home/u", seq: 3)) + "\n]}\n"
        let decoded = try StateFile.decode(v1)
        #expect(StateFile.snapshot(for: "/home/u", in: decoded)?.seq == 3)
    }

    /// A disk swapped at the path while the daemon was stopped starts a new history.
    @Test func anotherFilesystemAtThePathStartsANewHistory() {
        var tracker = TimeToFullTracker()
        var old = Self.snapshot()
        old.stats?.totalBlocks = 200
        tracker.restore(old)
        for hour in 0..<48 {
            _ = tracker.record(Self.snapshot(available: UInt64(40 - hour / 4), at: Int64(hour) * 3600))
        }
        let text = tracker.encoded(keeping: ["/home/u"])
        let (reloaded, problems) = TimeToFullTracker.decode(text)
        #expect(problems.isEmpty)
        #expect(reloaded.encoded(keeping: ["/home/u"]) == text)
        #expect(tracker.encoded(keeping: []) == HistoryFile.encode([:]))
    }

    final class Presenter: NotificationPresenter {
        var shown: [String] = []
        var withdrawn: [String] = []
        func show(key: String, kind: String, path: String, summary: String, body: String) { shown.append(summary) }
        func withdraw(key: String) { withdrawn.append(key) }
    }

    final class Keeper: FileKeeper {
        var saved: [String] = []
        func write(_ contents: String) { saved.append(contents) }
    }

    @Test func lowSpaceIsNotifiedOnceSnoozedAndWithdrawnOnRecovery() {
        let presenter = Presenter(), keeper = Keeper()
        var policy = LowSpacePolicy()
        policy.freeShare = Fraction(numerator: 10, denominator: 100)
        policy.freeBytes = UInt64.max
        let alerts = LowSpaceNotifications(policy: policy, alerts: [:], presenter: presenter, file: keeper, logger: Logger(label: "test"))
        alerts.check(Self.snapshot(available: 5), now: 1000)
        #expect(presenter.shown == ["Low disk space on /home"])
        alerts.check(Self.snapshot(available: 5), now: 1010)
        #expect(presenter.shown.count == 1, "once")
        alerts.ignore("/home/u", now: 1020)
        alerts.check(Self.snapshot(available: 1), now: 5000)
        #expect(presenter.shown.count == 1, "snoozed")
        alerts.check(Self.snapshot(available: 50), now: 6000)
        #expect(presenter.withdrawn == ["/home/u"])
        #expect(keeper.saved.count == 3)
        #expect(alerts.alert(for: "/home/u") == LowSpaceNotificationState())
    }
}
