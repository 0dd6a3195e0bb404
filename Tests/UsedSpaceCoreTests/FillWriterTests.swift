import Testing
@testable import UsedSpaceCore

/// The writers of a fast fill: /proc's files as the kernel writes them (6.x), the ranking of
/// two looks, and what is said of a writer.
@Suite struct FillWriterTests {
    static let io = "rchar: 104871552\nwchar: 104857600\nsyscr: 120\nsyscw: 100\nread_bytes: 28672\nwrite_bytes: 4096\ncancelled_write_bytes: 0\n"
    /// A command with a space and a parenthesis, as `comm` allows.
    static let stat = "4242 (my (tool)) S 4200 4242 4200 34816 4242 4194304 117 0 0 0 0 0 0 0 20 0 1 0 987654 8220672 378 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"

    @Test func countersAreReadAsProcWritesThem() {
        let counters = ProcessWriteCounters.parse(io: Self.io, stat: Self.stat, comm: "my (tool)\n")
        #expect(counters == ProcessWriteCounters(command: "my (tool)", startTime: 987_654, writtenBytes: 104_857_600, storedBytes: 4096))
        #expect(ProcessWriteCounters.parse(io: "wchar: x\nwrite_bytes: 1\n", stat: Self.stat, comm: "a") == nil)
        #expect(ProcessWriteCounters.parse(io: Self.io, stat: "4242 (cut) S 1 2", comm: "a") == nil)
        #expect(ProcessWriteCounters.parse(io: Self.io, stat: Self.stat, comm: "evil\u{1b}[2J\n")?.command.contains("\u{1b}") == false)
    }

    @Test func anOpenFileIsReadFromItsFdinfo() {
        #expect(ProcessWriteCounters.parse(fdinfo: "pos:\t1048576\nflags:\t0100001\nmnt_id:\t30\nino:\t12\n")
                == .init(position: 1_048_576, mountID: 30, forWriting: true))
        #expect(ProcessWriteCounters.parse(fdinfo: "pos:\t0\nflags:\t02100002\nmnt_id:\t7\n")?.forWriting == true)
        #expect(ProcessWriteCounters.parse(fdinfo: "pos:\t0\nflags:\t0100000\nmnt_id:\t7\n")?.forWriting == false)
        #expect(ProcessWriteCounters.parse(fdinfo: "pos:\t0\nflags:\tnope\nmnt_id:\t7\n") == nil)
        #expect(ProcessWriteCounters.parse(fdinfo: "") == nil)
    }

    static func counters(_ command: String, start: UInt64 = 1, written: UInt64, stored: UInt64 = 0) -> ProcessWriteCounters {
        ProcessWriteCounters(command: command, startTime: start, writtenBytes: written, storedBytes: stored)
    }

    @Test func theFastestWritersComeFirst() {
        let before: [Int32: ProcessWriteCounters] = [10: Self.counters("dd", written: 0), 11: Self.counters("cp", written: 0, stored: 0),
                      12: Self.counters("idle", written: 5), 13: Self.counters("reused", start: 1, written: 0)]
        let after: [Int32: ProcessWriteCounters] = [10: Self.counters("dd", written: 20_000_000), 11: Self.counters("cp", written: 1_000, stored: 50_000_000),
                     12: Self.counters("idle", written: 6), 13: Self.counters("reused", start: 2, written: 90_000_000),
                     14: Self.counters("new", written: 90_000_000)]
        let ranked = WriterRanking.rank(before: before, after: after, seconds: 2, minimumBytesPerSecond: 256 << 10)
        // write_bytes counts where wchar does not (mmap writes); a reused pid and a process
        // not seen before are not compared.
        #expect(ranked == [WriterRanking.Ranked(pid: 11, command: "cp", bytesPerSecond: 25_000_000), WriterRanking.Ranked(pid: 10, command: "dd", bytesPerSecond: 10_000_000)])
        #expect(WriterRanking.rank(before: before, after: after, seconds: 0, minimumBytesPerSecond: 1).isEmpty)
    }

    @Test func aWriterIsSaidWithItsFileUnderHome() {
        let writer = FillWriter(pid: 4242, command: "python3", bytesPerSecond: 120_000_000, file: "/home/alice/Downloads/x.iso")
        #expect(writer.description(home: "/home/alice") == "python3 (pid 4242) writing ~/Downloads/x.iso")
        #expect(writer.description(home: "/home/al") == "python3 (pid 4242) writing /home/alice/Downloads/x.iso")
        #expect(writer.description(home: nil) == "python3 (pid 4242) writing /home/alice/Downloads/x.iso")
        #expect(FillWriter(pid: 7, command: "dd", bytesPerSecond: 1).description(home: "/") == "dd (pid 7)")
        #expect(FillWriter(pid: 7, command: "dd", bytesPerSecond: 1, file: "/tmp/a\nb").description(home: nil) == "dd (pid 7) writing /tmp/a?b")
    }

    static func filling(_ writers: FillWriters?, state: SnapshotState = .fresh) -> Snapshot {
        var snapshot = Snapshot(path: "/home/alice", mountPoint: "/home", fileSystemType: "ext4",
                                stats: FilesystemStats(blockSize: 1_000_000, totalBlocks: 1000, freeBlocks: 500, availableBlocks: 500),
                                state: state, seq: 9, sampledAt: Timestamp(secondsSinceEpoch: 1_800_000_000), source: .daemon)
        snapshot.fastFill = FastFill(bytesPerSecond: 120_000_000, secondsToFull: 360, sustainedSeconds: 30)
        snapshot.fillWriters = writers
        return snapshot
    }

    @Test func theDetailsAndJSONSayWhoIsFilling() throws {
        let python = FillWriter(pid: 4242, command: "python3", bytesPerSecond: 120_000_000, file: "/home/alice/Downloads/x.iso")
        let named = Self.filling(FillWriters([python], sawGrowth: true, home: "/home/alice"))
        #expect(TextRenderer.detailLines(named).contains("Writing:\tpython3 (pid 4242) writing ~/Downloads/x.iso, 120 MB/s"),
                "\(TextRenderer.detailLines(named))")
        let block = BarBlock(named, options: BarOptions(), severity: .critical, expanded: true)
        #expect(block.details.contains("Writing: python3 (pid 4242) writing ~/Downloads/x.iso, 120 MB/s"), "\(block.details)")
        guard case .array(let writers)? = try JSONParser.parse(JSONRenderer.render(named))["fast_fill"]?["writers"] else {
            Issue.record("no writers in fast_fill")
            return
        }
        #expect(writers.first?["pid"]?.uint64Value == 4242 && writers.first?["file"]?.stringValue == "/home/alice/Downloads/x.iso")
        #expect(try JSONParser.parse(JSONRenderer.render(named))["fast_fill"]?["writing"]?.stringValue
                == "python3 (pid 4242) writing ~/Downloads/x.iso, 120 MB/s")
        #expect(FilesystemBusProperty.fastFillWriting.value(of: FilesystemBusState(watchedPath: "/home/alice", snapshot: named, label: "", limits: SeverityPolicy()))
                == .string("python3 (pid 4242) writing ~/Downloads/x.iso, 120 MB/s"))

        // None of the user's while the filesystem grew: someone else; no growth either: nobody
        // seen. Nobody looked: nothing said.
        #expect(TextRenderer.detailLines(Self.filling(FillWriters([], sawGrowth: true, home: nil))).contains("Writing:\tanother user or the system"))
        #expect(TextRenderer.detailLines(Self.filling(FillWriters([], sawGrowth: false, home: nil))).contains("Writing:\tno writer seen"))
        #expect(SpaceDetailsText.writing(Self.filling(nil)) == "")
        #expect(!TextRenderer.detailLines(Self.filling(nil)).contains { $0.hasPrefix("Writing:") })
        #expect(try JSONParser.parse(JSONRenderer.render(Self.filling(nil)))["fast_fill"]?["writers"] == nil)
        #expect(!TextRenderer.detailLines(Self.filling(FillWriters([python], sawGrowth: true, home: nil), state: .stale)).contains { $0.hasPrefix("Writing:") })
    }

    /// "another user or the system" only when the same window saw the filesystem grow.
    @Test func aWindowSaysSomeoneElseOnlyWhenTheFilesystemGrew() {
        let python = FillWriter(pid: 4242, command: "python3", bytesPerSecond: 8_000_000, file: "/home/alice/x")
        // 1.5 s: growing by at least 256 KiB/s is growth.
        #expect(FillWriters(window: [], freeBefore: 10_000_000, freeAfter: 9_000_000, seconds: 1.5, home: nil).sawGrowth)
        #expect(!FillWriters(window: [], freeBefore: 10_000_000, freeAfter: 9_700_000, seconds: 1.5, home: nil).sawGrowth)
        // Freed, unknown, or nothing moved: nobody was seen writing.
        #expect(!FillWriters(window: [], freeBefore: 9_000_000, freeAfter: 10_000_000, seconds: 1.5, home: nil).sawGrowth)
        #expect(!FillWriters(window: [], freeBefore: nil, freeAfter: 9_000_000, seconds: 1.5, home: nil).sawGrowth)
        #expect(FillWriters(window: [python], freeBefore: nil, freeAfter: nil, seconds: 1.5, home: nil).sawGrowth)
    }

    /// A look that saw nobody write keeps what was said before, while the fill goes on.
    @Test func aLookThatSawNobodyKeepsTheLastWritersNamed() {
        let python = FillWriters([FillWriter(pid: 4242, command: "python3", bytesPerSecond: 8_000_000)], sawGrowth: true, home: nil)
        let someoneElse = FillWriters([], sawGrowth: true, home: nil)
        let nobody = FillWriters([], sawGrowth: false, home: nil)
        #expect(python.followed(by: nobody) == python)
        #expect(python.followed(by: someoneElse) == someoneElse)
        #expect(someoneElse.followed(by: python) == python)
        #expect(nobody.followed(by: nobody) == nobody)
    }
}
