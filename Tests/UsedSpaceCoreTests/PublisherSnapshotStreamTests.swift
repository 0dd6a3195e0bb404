import Testing
@testable import UsedSpaceCore

/// Every snapshot of a path comes from its Publisher, seq after seq: the samples', the same
/// numbers republished (another outlook), and the last one of a watch that ends.
@Suite struct PublisherSnapshotStreamTests {
    static func sample(available: UInt64, path: String = "/media/usb") -> Sample {
        .measured(Measurement(path: path, mountPoint: "/media/usb", fileSystemType: "ext4",
                              stats: FilesystemStats(blockSize: 4096, totalBlocks: 1000, freeBlocks: available, availableBlocks: available),
                              sampledAt: Timestamp(secondsSinceEpoch: 1_700_000_000)))
    }

    @Test func aRepublishIsTheSameNumbersWithTheNextSeq() throws {
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        let nothing = publisher.republish()
        #expect(nothing == nil, "nothing to republish yet")
        publisher.accept(Self.sample(available: 500))
        let first = try #require(publisher.current)
        let republished = publisher.republish()
        let again = try #require(republished)
        #expect(again.seq == first.seq + 1)
        #expect(again.stats == first.stats && again.sampledAt == first.sampledAt)
        #expect(publisher.current == again)
    }

    @Test func anEndedWatchsLastSnapshotComesAfterEveryOther() throws {
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        let early = publisher.end(reason: "gone", unmounted: true, watchedPath: "/media/usb", at: Timestamp(secondsSinceEpoch: 0))
        #expect(early == nil)
        publisher.accept(Self.sample(available: 500))
        publisher.accept(Self.sample(available: 400))
        let before = try #require(publisher.current)
        let time = Timestamp(secondsSinceEpoch: 1_700_000_100)
        let ended = publisher.end(reason: "/media/usb was unmounted; no longer watched", unmounted: true, watchedPath: "/media/usb", at: time)
        let last = try #require(ended)
        #expect(last.seq == before.seq + 1)
        #expect(last.state == .failed && last.stats == nil && last.timeToFull == nil && last.fastFill == nil)
        #expect(last.watchEnded && last.notMounted)
        #expect(last.error == "/media/usb was unmounted; no longer watched")
        #expect(last.mountPoint == "/media/usb" && last.sampledAt == time)
        let after = publisher.republish()
        #expect(after == nil, "no numbers to republish after the end")
    }

    /// A snapshot of the state file read late raises the seq of the next publish above it.
    @Test func anAdoptedSnapshotsSeqIsCarriedOn() throws {
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        publisher.accept(Self.sample(available: 500))
        var restored = try #require(publisher.current)
        restored.seq = 5000
        publisher.adopt(restored)
        publisher.accept(Self.sample(available: 300))
        #expect(publisher.current?.seq == 5001)
    }
}
