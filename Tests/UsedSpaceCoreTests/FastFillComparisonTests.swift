import Testing
@testable import UsedSpaceCore

/// The fast-fill detector against `predict_linear(avail[5m], 3600) < 0` on the traces of
/// `FillTrace`, both fed the same samples, at the daemon's default interval (5 s, from each
/// of the 5 possible phases) and at 1 s. Prints the tables of docs/fast-fill.md:
///
///     swift test --filter FastFillComparisonTests
@Suite struct FastFillComparisonTests {
    struct Row {
        var trace: FillTrace
        var ours: [FillScore]
        var reference: [FillScore]

        init(_ trace: FillTrace, interval: Int) {
            self.trace = trace
            let phases = (0..<interval).map { FillScore.run(trace, interval: interval, phase: $0) }
            ours = phases.map(\.ours)
            reference = phases.map(\.predictLinear)
        }

        static func range(_ values: [Int?]) -> String {
            let known = values.compactMap { $0 }
            guard known.count == values.count, let low = known.min(), let high = known.max() else {
                return known.isEmpty ? "never" : "missed in \(values.count - known.count) of \(values.count)"
            }
            return low == high ? "\(low) s" : "\(low)–\(high) s"
        }

        static func mean(_ values: [Int]) -> String {
            let value = Double(values.reduce(0, +)) / Double(max(1, values.count))
            return value == value.rounded() ? String(Int(value)) : String(Double(Int(value * 10)) / 10)
        }

        func cells(_ scores: [FillScore]) -> [String] {
            [trace.fills ? Self.range(scores.map(\.detection)) : "—", Self.mean(scores.map(\.falseAlarms)),
             Self.mean(scores.map(\.falseAlarmSeconds)), trace.writeEnd == nil ? "—" : Self.range(scores.map(\.silentAfter))]
        }

        var line: String {
            "| \(trace.name) | " + (cells(ours) + cells(reference)).joined(separator: " | ") + " |"
        }
    }

    static let header = """
        | trace | ours: detected after | false alarms | false-alarm time (s) | silent after the writing stops | predict_linear: detected after | false alarms | false-alarm time (s) | silent after |
        |---|--:|--:|--:|--:|--:|--:|--:|--:|
        """

    static func table(interval: Int) -> [Row] {
        let rows = FillTrace.all.map { Row($0, interval: interval) }
        print("\nsampled every \(interval) s (mean over \(interval) phase\(interval == 1 ? "" : "s")):\n" + header)
        for row in rows { print(row.line) }
        let ours = rows.flatMap(\.ours).map(\.falseAlarms).reduce(0, +), theirs = rows.flatMap(\.reference).map(\.falseAlarms).reduce(0, +)
        print("| **false alarms in all** | | **\(Double(ours) / Double(interval))** | | | | **\(Double(theirs) / Double(interval))** | | |\n")
        return rows
    }

    @Test func atTheDefaultInterval() {
        let rows = Self.table(interval: 5)
        let target = rows.first { $0.trace.name == FillTrace.steady50.name }!
        // The target: a steady 50 MB/s with 10 GB free is flagged within 30 s, whatever the phase.
        #expect(target.ours.allSatisfy { ($0.detection ?? .max) <= 30 }, "\(target.ours.map(\.detection))")
        // Every fill that fills is caught before it is full.
        for row in rows where row.trace.fills {
            #expect(row.ours.allSatisfy { $0.detection != nil }, "\(row.trace.name)")
        }
        // No more false alarms than predict_linear, and none at all on noise or a quick cron file.
        #expect(rows.flatMap(\.ours).map(\.falseAlarms).reduce(0, +) <= rows.flatMap(\.reference).map(\.falseAlarms).reduce(0, +))
        for trace in [FillTrace.noiseLarge, .noiseSmall, .cronQuick] {
            #expect(rows.first { $0.trace.name == trace.name }!.ours.allSatisfy { $0.falseAlarms == 0 }, "\(trace.name)")
        }
    }

    @Test func atOneSecond() {
        let rows = Self.table(interval: 1)
        #expect(rows.first { $0.trace.name == FillTrace.steady50.name }!.ours[0].detection.map { $0 <= 30 } == true)
        #expect(rows.flatMap(\.ours).map(\.falseAlarms).reduce(0, +) <= rows.flatMap(\.reference).map(\.falseAlarms).reduce(0, +))
    }

    /// Noise, the bursty log and the build under ten other seeds each, every 5 s from phase 0:
    /// false alarms of both, and whether every log is still caught.
    @Test func otherSeeds() {
        var ours = 0, theirs = 0, evaluations = 0
        var logDetections: [Int] = []
        for seed in UInt64(100)..<110 {
            for trace in [FillTrace.noise(sigma: 200 * FillTrace.megabyte, free: 5 * FillTrace.gigabyte, seed: seed),
                          FillTrace.noise(sigma: 50 * FillTrace.megabyte, free: FillTrace.gigabyte, seed: seed + 1000),
                          FillTrace.build(seed: seed), FillTrace.runawayLog(seed: seed)] {
                let (mine, reference) = FillScore.run(trace, interval: 5, phase: 0)
                ours += mine.falseAlarms
                theirs += reference.falseAlarms
                evaluations += trace.available.count / 5
                if trace.fills {
                    #expect(mine.detection != nil, "\(trace.name), seed \(seed)")
                    logDetections.append(mine.detection ?? -1)
                }
            }
        }
        print("\nnoise (two kinds), the build and the log under seeds 100–109, every 5 s (\(evaluations) evaluations): "
              + "false alarms: ours \(ours), predict_linear \(theirs); the log caught after \(logDetections.min()!)–\(logDetections.max()!) s\n")
        #expect(ours <= theirs)
    }
}
