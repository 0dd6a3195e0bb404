import Testing
@testable import UsedSpaceCore

/// `Publisher.acceptFigures`, the sampling threads' shortcut for a statvfs that is no news,
/// must decide exactly as `accept` of the full sample would. Two publishers are fed the
/// same trace: one always the full sample, the other the shortcut first (the full sample,
/// at the same time, when it declines), as a sampling thread does while the path leads to
/// the same filesystem; their decisions and snapshots must be the same at every step.
@Suite struct PublisherUnchangedTests {
    static let megabyte: UInt64 = 1_000_000
    static let gigabyte: UInt64 = 1_000_000_000

    enum Step {
        case sample(available: UInt64, second: Int)
        case timeout(second: Int)
        case policy(PublishPolicy)
    }

    static func measurement(available: UInt64, second: Int) -> Sample {
        let blocks = 100 * gigabyte / 4096
        return .measured(Measurement(
            path: "/data", mountPoint: "/data", fileSystemType: "ext4",
            stats: FilesystemStats(blockSize: 4096, totalBlocks: blocks, freeBlocks: available / 4096, availableBlocks: available / 4096),
            sampledAt: Timestamp(secondsSinceEpoch: 1_700_000_000 + Int64(second))))
    }

    /// A quiet stretch with steps below the threshold (0.01 % of 100 GB is 10 MB) that add
    /// up past it, a fill written every 10 s and sampled every 5 s (so repeats fall inside
    /// the fill, where the detector's verdict moves), the fill's end, a timeout followed by
    /// the same figures, a step below the threshold, and a lower threshold with the same
    /// figures after it.
    static var trace: [Step] {
        var steps: [Step] = []
        var available = 20 * gigabyte
        for second in stride(from: 0, to: 300, by: 5) {
            if second % 20 == 0 { available -= 3 * megabyte }
            if second % 45 == 0 { available += 1 * megabyte }
            steps.append(.sample(available: available, second: second))
        }
        for second in stride(from: 300, to: 420, by: 5) {
            if second % 10 == 0 { available -= 1_000 * megabyte }
            steps.append(.sample(available: available, second: second))
        }
        for second in stride(from: 420, to: 500, by: 5) { steps.append(.sample(available: available, second: second)) }
        steps.append(.timeout(second: 500))
        for second in stride(from: 505, to: 530, by: 5) { steps.append(.sample(available: available, second: second)) }
        available -= 5 * megabyte
        for second in stride(from: 530, to: 545, by: 5) { steps.append(.sample(available: available, second: second)) }
        steps.append(.policy(PublishPolicy(threshold: Fraction(numerator: 1, denominator: 1_000_000_000))))
        for second in stride(from: 545, to: 560, by: 5) { steps.append(.sample(available: available, second: second)) }
        return steps
    }

    @Test func theShortcutDecidesAsTheFullSample() {
        var full = Publisher(policy: PublishPolicy(), source: .daemon)
        var quick = Publisher(policy: PublishPolicy(), source: .daemon)
        var lastFigures: FilesystemStats?
        var shortcuts = 0, movedShortcuts = 0, declined = 0, published = 0
        for (index, step) in Self.trace.enumerated() {
            switch step {
            case .sample(let available, let second):
                let sample = Self.measurement(available: available, second: second)
                let time = UInt64(second) * 1_000_000_000 + 1
                let expected = full.accept(sample, monotonicNanoseconds: time)
                guard case .measured(let measurement) = sample else {
                    Issue.record("step \(index): not a measured sample")
                    continue
                }
                var decision: PublishDecision
                if quick.acceptFigures(measurement.stats, monotonicNanoseconds: time) {
                    decision = .noData
                    shortcuts += 1
                    if measurement.stats != lastFigures { movedShortcuts += 1 }
                } else {
                    declined += 1
                    decision = quick.accept(sample, monotonicNanoseconds: time)
                }
                lastFigures = measurement.stats
                if expected != .noData { published += 1 }
                #expect(decision == expected, "step \(index), second \(second)")
            case .timeout(let second):
                let failed = Sample.failed(.timedOut(path: "/data", seconds: 5), path: "/data", mountPoint: "/data",
                                           fileSystemType: "ext4", at: Timestamp(secondsSinceEpoch: 1_700_000_000 + Int64(second)))
                let expected = full.accept(failed)
                let decision = quick.accept(failed)
                #expect(decision == expected)
            case .policy(let policy):
                full.policy = policy
                quick.policy = policy
            }
            #expect(quick.current == full.current, "step \(index)")
        }
        // The trace exercises all three ways: shortcut taken, declined, and news.
        #expect(shortcuts > 50)
        #expect(movedShortcuts >= 10, "figures that moved below the threshold")
        #expect(declined >= published, "every publish went the full way")
        #expect(published >= 5)
        #expect(full.current?.state == .fresh)
    }

    @Test func whatTheShortcutTakesAndLeaves() {
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        let sample = Self.measurement(available: 10 * Self.gigabyte, second: 0)
        guard case .measured(let measurement) = sample else {
            Issue.record("not a measured sample")
            return
        }
        var taken = publisher.acceptFigures(measurement.stats, monotonicNanoseconds: 1)
        #expect(!taken, "nothing accepted yet")
        publisher.accept(sample, monotonicNanoseconds: 1)
        taken = publisher.acceptFigures(measurement.stats, monotonicNanoseconds: 2)
        #expect(taken, "the same figures")
        var other = measurement.stats
        other.availableBlocks -= 1
        taken = publisher.acceptFigures(other, monotonicNanoseconds: 3)
        #expect(taken, "a block less: below the threshold")
        other.availableBlocks -= other.totalBlocks / 100
        taken = publisher.acceptFigures(other, monotonicNanoseconds: 4)
        #expect(!taken, "1 % less: news")
        taken = publisher.acceptFigures(measurement.stats, monotonicNanoseconds: 5)
        #expect(taken, "back to the figures of the snapshot")
        var grown = measurement.stats
        grown.totalBlocks += 1
        taken = publisher.acceptFigures(grown, monotonicNanoseconds: 6)
        #expect(!taken, "another size: news")
        // Seen on another filesystem: the path is no longer a mount point.
        var moved = measurement
        moved.mountPoint = "/"
        publisher.accept(.measured(moved), monotonicNanoseconds: 7)
        #expect(publisher.current?.notMounted == true)
        taken = publisher.acceptFigures(moved.stats, monotonicNanoseconds: 8)
        #expect(!taken, "not mounted is not fresh")
    }
}
