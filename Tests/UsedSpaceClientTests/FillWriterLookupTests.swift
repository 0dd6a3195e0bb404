import Foundation
import Testing
@testable import UsedSpaceClient
import UsedSpaceCore
import UsedSpaceSystem

/// How a watch names who is filling a filesystem where the daemon has not: this process's
/// real write counters (/proc), the free space of the snapshots it is given, and an injected
/// clock.
@Suite struct FillWriterLookupTests {
    static let second: UInt64 = 1_000_000_000
    static let mebibyte: UInt64 = 1 << 20

    /// A look that saw the filesystem grow and none of the user's processes write is not
    /// said at once: a write still going on then has grown the filesystem but is counted only
    /// when it returns. The next look, a second later, names the writer whose write returned.
    @Test func growthWithoutAWriterIsJudgedAgainBeforeItIsSaid() throws {
        let mount = try Self.temporaryDirectoryMount()
        let file = mount.directory + "/usedspace-lookup-\(getpid())"
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let handle = try #require(FileHandle(forWritingAtPath: file))
        defer { try? handle.close() }

        var lookup = FillWriterLookup()
        let start = MonotonicClock.nanoseconds()
        #expect(lookup.named(Self.filling(mount.entry, freeMebibytes: 9_000), now: start).fillWriters == nil)
        // 100 MiB gone, nothing of this process's counted yet (its write under way).
        let grown = lookup.named(Self.filling(mount.entry, freeMebibytes: 8_900), now: start + 11 * Self.second / 10)
        #expect(grown.fillWriters.map { !$0.writers.isEmpty } ?? true,
                "said at once: \(String(describing: grown.fillWriters))")

        // The write returns; a look a second after the doubted one names its writer.
        try handle.write(contentsOf: Data(count: Int(64 * Self.mebibyte)))
        let named = lookup.named(Self.filling(mount.entry, freeMebibytes: 8_836), now: start + 22 * Self.second / 10)
        let writers = try #require(named.fillWriters, "nothing said a second later").writers
        #expect(writers.contains { $0.pid == getpid() && $0.file == file }, "\(writers)")
    }

    /// Growth that no writer of the user's explains, seen twice, is said: someone else's.
    @Test func growthSeenAgainWithoutAWriterIsSomeoneElses() throws {
        let mount = try Self.temporaryDirectoryMount()
        // A user with no processes: none of "theirs" ever writes.
        var lookup = FillWriterLookup(survey: FillWriterSurvey(userID: 4_000_000_000))
        let start = MonotonicClock.nanoseconds()
        _ = lookup.named(Self.filling(mount.entry, freeMebibytes: 9_000), now: start)
        #expect(lookup.named(Self.filling(mount.entry, freeMebibytes: 8_900), now: start + Self.second).fillWriters == nil)
        #expect(lookup.named(Self.filling(mount.entry, freeMebibytes: 8_890), now: start + 15 * Self.second / 10).fillWriters == nil,
                "looked again before a second had passed")
        let said = try #require(lookup.named(Self.filling(mount.entry, freeMebibytes: 8_800), now: start + 2 * Self.second).fillWriters)
        #expect(said.writers.isEmpty && said.sawGrowth, "\(said)")
    }

    /// The mount of this machine's temporary directory, from the real mount table.
    static func temporaryDirectoryMount() throws -> (directory: String, entry: MountEntry) {
        let directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        let status = try FileStatus.of(directory)
        let entry = try #require(MountLocator.mount(containing: directory, in: try MountTable.read(),
                                                    device: (status.deviceMajor, status.deviceMinor)))
        return (directory, entry)
    }

    /// A fresh snapshot of that mount, filling fast, with `freeMebibytes` available.
    static func filling(_ entry: MountEntry, freeMebibytes: UInt64) -> Snapshot {
        let stats = FilesystemStats(blockSize: mebibyte, totalBlocks: 10_000, freeBlocks: freeMebibytes, availableBlocks: freeMebibytes)
        var snapshot = Snapshot(path: entry.mountPoint, mountPoint: entry.mountPoint, fileSystemType: entry.fileSystemType, stats: stats,
                                state: .fresh, seq: 1, sampledAt: Timestamp(secondsSinceEpoch: 0), source: .daemon)
        snapshot.fastFill = FastFill(bytesPerSecond: 100_000_000, secondsToFull: 90, sustainedSeconds: 10)
        return snapshot
    }
}
