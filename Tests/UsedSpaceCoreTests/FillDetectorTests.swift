import Testing
@testable import UsedSpaceCore

/// The fast-fill detector's rule, one property at a time (the comparison over whole traces is
/// FastFillComparisonTests), and its place in the publish rule.
@Suite struct FillDetectorTests {
    static let megabyte: UInt64 = 1_000_000
    static let gigabyte: UInt64 = 1_000_000_000

    /// Feeds `seconds` of samples every `interval`, starting at `start`, available bytes
    /// from `available(second)`; returns the verdict after each sample.
    static func feed(_ detector: inout FillDetector, from start: Int = 0, seconds: Int, interval: Int = 5,
                     _ available: (Int) -> UInt64) -> [(second: Int, verdict: FastFill?)] {
        stride(from: start, to: start + seconds, by: interval).map { second in
            (second, detector.observe(seconds: Double(second), availableBytes: available(second)))
        }
    }

    @Test func aSteadyFillIsFlaggedWithItsRateAndTimeToFull() throws {
        var detector = FillDetector()
        _ = Self.feed(&detector, seconds: 300) { _ in 10 * Self.gigabyte }
        let verdicts = Self.feed(&detector, from: 300, seconds: 40) { 10 * Self.gigabyte - UInt64($0 - 300) * 50 * Self.megabyte }
        let first = try #require(verdicts.first { $0.verdict != nil })
        #expect(first.second - 300 <= 30, "flagged \(first.second - 300) s after the fill started")
        let fill = try #require(first.verdict)
        // 50 MB/s; at that second 10 GB − 50 MB/s · t is left: (10000 − 50 t) / 50 s to full.
        #expect(fill.bytesPerSecond == 50 * Self.megabyte)
        #expect(fill.secondsToFull == Int64(200 - (first.second - 300)), "\(fill)")
        #expect(fill.description == "filling at 50 MB/s \u{2014} full in about 3 minutes")
    }

    @Test func aFillThatStopsFallsSilentWithinAFewSamples() {
        var detector = FillDetector()
        _ = Self.feed(&detector, seconds: 300) { _ in 20 * Self.gigabyte }
        let writing = Self.feed(&detector, from: 300, seconds: 60) { 20 * Self.gigabyte - UInt64($0 - 300) * 100 * Self.megabyte }
        #expect(writing.last?.verdict != nil)
        let after = Self.feed(&detector, from: 360, seconds: 60) { _ in 14 * Self.gigabyte }
        let silentAt = after.first { $0.verdict == nil }?.second
        #expect(silentAt.map { $0 - 360 <= 15 } == true, "silent at \(String(describing: silentAt))")
        #expect(after.drop { $0.verdict != nil }.allSatisfy { $0.verdict == nil }, "and stays silent")
    }

    @Test func aQuietDiskAndAFillingOneFarFromFullAreSilent() {
        var detector = FillDetector()
        #expect(Self.feed(&detector, seconds: 3600) { _ in 5 * Self.gigabyte }.allSatisfy { $0.verdict == nil })
        // 1 MB/s with 50 GB free: full in 14 hours, not soon.
        detector = FillDetector()
        #expect(Self.feed(&detector, seconds: 3600) { 50 * Self.gigabyte - UInt64($0) * Self.megabyte }.allSatisfy { $0.verdict == nil })
        // Space being freed.
        detector = FillDetector()
        #expect(Self.feed(&detector, seconds: 600) { Self.gigabyte + UInt64($0) * 10 * Self.megabyte }.allSatisfy { $0.verdict == nil })
    }

    /// One step, however large, is not a sustained fill: a file copied in a second.
    @Test func aSingleStepIsNotAFill() {
        var detector = FillDetector()
        let verdicts = Self.feed(&detector, seconds: 900, interval: 1) { $0 < 600 ? 10 * Self.gigabyte : 3 * Self.gigabyte }
        #expect(verdicts.allSatisfy { $0.verdict == nil })
    }

    /// Space that routinely comes and goes by a few hundred MB (temporary files written and
    /// removed at random, the noise of FillTrace) makes a 150 MB decline over a minute noise,
    /// however straight; on a disk that never gives space back the same decline counts.
    @Test func aDeclineWithinTheRoutineIsNoise() {
        let noise = FillTrace.noise(sigma: 200_000_000, free: 1_000_000_000, seed: 31).available
        func run(_ routine: Bool) -> Bool {
            var detector = FillDetector()
            _ = Self.feed(&detector, seconds: 540, interval: 1) { second in routine ? noise[second] : Self.gigabyte }
            let verdicts = Self.feed(&detector, from: 540, seconds: 60, interval: 1) { Self.gigabyte - UInt64($0 - 540) * 2_500_000 }
            return verdicts.contains { $0.verdict != nil }
        }
        #expect(run(false))
        #expect(!run(true))
    }

    /// A 100 ms interval keeps a bounded past (thinned with age) and still sees a fill.
    @Test func aShortIntervalKeepsABoundedPast() {
        var detector = FillDetector()
        var flagged = false
        for tenth in 0..<36_000 {
            let second = Double(tenth) / 10
            let available = tenth < 30_000 ? 10 * Self.gigabyte : 10 * Self.gigabyte - UInt64(tenth - 30_000) * Self.megabyte / 2
            flagged = detector.observe(seconds: second, availableBytes: available) != nil || flagged
            #expect(detector.points.count <= 260)
        }
        #expect(flagged)
        #expect(detector.points.first.map { 3599.9 - $0.time >= 600 } == true, "the past still reaches back 10 minutes")
    }

    @Test func samplesOutOfOrderChangeNothingAndResetForgets() {
        var detector = FillDetector()
        _ = Self.feed(&detector, seconds: 300) { _ in 10 * Self.gigabyte }
        let verdicts = Self.feed(&detector, from: 300, seconds: 60) { 10 * Self.gigabyte - UInt64($0 - 300) * 50 * Self.megabyte }
        let last = verdicts.last?.verdict
        #expect(last != nil)
        #expect(detector.observe(seconds: 355, availableBytes: 10 * Self.gigabyte) == last)
        #expect(detector.observe(seconds: .nan, availableBytes: 0) == last)
        detector.reset()
        #expect(detector.points.isEmpty)
        #expect(detector.observe(seconds: 400, availableBytes: 1) == nil)
    }

    @Test func ratesAreShownToTwoSignificantDigits() {
        #expect(FastFill.twoSignificantDigits(123_456_789) == 120_000_000)
        #expect(FastFill.twoSignificantDigits(125_000_000) == 130_000_000)
        #expect(FastFill.twoSignificantDigits(99.6) == 100)
        #expect(FastFill.twoSignificantDigits(7.4) == 7)
        #expect(FastFill.twoSignificantDigits(0.4) == 1)
        #expect(FastFill.twoSignificantDigits(0) == 0)
        #expect(FastFill.twoSignificantDigits(.infinity) == 0)
        #expect(FastFill.twoSignificantDigits(1e30) == 9_000_000_000_000_000_000)
        #expect(FastFill(bytesPerSecond: 120_000_000, secondsToFull: 360, sustainedSeconds: 30).description
                == "filling at 120 MB/s \u{2014} full in about 6 minutes")
    }

    // MARK: - In the publish rule

    static func sample(available: UInt64, total: UInt64 = 100 * gigabyte, at second: Int) -> Sample {
        let blocks = total / 4096
        return .measured(Measurement(path: "/data", mountPoint: "/data", fileSystemType: "ext4",
                                     stats: FilesystemStats(blockSize: 4096, totalBlocks: blocks, freeBlocks: available / 4096, availableBlocks: available / 4096),
                                     sampledAt: Timestamp(secondsSinceEpoch: 1_700_000_000 + Int64(second))))
    }

    /// A fill in steps below the publish threshold (on a 100 TB disk, 0.01 % is 10 GB) is
    /// still news once the detector flags it, and again when it ends.
    @Test func theVerdictIsNewsBetweenThresholdSteps() {
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        let total = 100_000 * Self.gigabyte
        var decisions: [(Int, PublishDecision)] = []
        for second in stride(from: 0, to: 900, by: 5) {
            let written = second < 300 ? 0 : UInt64(min(second, 360) - 300) * 80 * Self.megabyte
            let decision = publisher.accept(Self.sample(available: 5 * Self.gigabyte - written, total: total, at: second),
                                            monotonicNanoseconds: UInt64(second) * 1_000_000_000 + 1)
            decisions.append((second, decision))
        }
        let news = decisions.filter { $0.1 == .newData }.map(\.0)
        #expect(news.first == 0)
        #expect(news.contains { $0 > 300 && $0 <= 330 }, "flagged: \(news)")
        #expect(news.contains { $0 > 360 && $0 <= 380 }, "ended: \(news)")
        #expect(publisher.current?.fastFill == nil)
        // Without the time of the samples, the detector is not fed.
        var untimed = Publisher(policy: PublishPolicy(), source: .daemon)
        for second in stride(from: 0, to: 400, by: 5) {
            untimed.accept(Self.sample(available: 20 * Self.gigabyte - UInt64(max(0, second - 300)) * 80 * Self.megabyte, total: total, at: second))
        }
        #expect(untimed.current?.fastFill == nil)
    }

    @Test func aRestoredOrStaleSnapshotHasNoFill() {
        var snapshot = Snapshot(
            path: "/data", mountPoint: "/data", fileSystemType: "ext4",
            stats: FilesystemStats(blockSize: 4096, totalBlocks: 100, freeBlocks: 50, availableBlocks: 50), state: .fresh, seq: 7,
            sampledAt: Timestamp(secondsSinceEpoch: 0), source: .daemon)
        snapshot.fastFill = FastFill(bytesPerSecond: 1, secondsToFull: 2, sustainedSeconds: 3)
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon, restoring: snapshot)
        #expect(publisher.current?.fastFill == nil)
        publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        for second in stride(from: 0, to: 400, by: 5) {
            publisher.accept(Self.sample(available: 20 * Self.gigabyte - UInt64(max(0, second - 300)) * 100 * Self.megabyte, at: second),
                             monotonicNanoseconds: UInt64(second) * 1_000_000_000)
        }
        #expect(publisher.current?.fastFill != nil)
        publisher.accept(.failed(.timedOut(path: "/data", seconds: 5), path: "/data", mountPoint: "/data", fileSystemType: "ext4",
                                 at: Timestamp(secondsSinceEpoch: 1)))
        #expect(publisher.current?.state == .stale && publisher.current?.fastFill == nil)
    }
}
