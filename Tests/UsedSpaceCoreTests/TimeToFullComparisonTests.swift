import Testing
@testable import UsedSpaceCore

/// Our time-to-full alarm against Prometheus's usual `predict_linear(avail[6h], 24h) < 0`, on
/// the synthetic histories of `TrendScenario`, evaluated every hour. Prints the table that
/// docs/time-to-full.md reproduces:
///
///     swift test --filter TimeToFullComparisonTests
@Suite struct TimeToFullComparisonTests {
    static let silent: Set<String> = [
        TrendScenario.cronSpike.name, TrendScenario.slowCronSpike.name, TrendScenario.cronSpikeOnSlowGrowth.name, TrendScenario.deletion.name,
        TrendScenario.burstThenPlateau.name, TrendScenario.noisyPlateau.name, TrendScenario.shrinking.name,
    ]

    @Test func falseAlarmsAndMissesAgainstPredictLinear() {
        let evaluations = TrendScenario.all.map { TrendEvaluation($0) }
        var totals = TrendEvaluation.Totals()
        print("\n" + TrendEvaluation.header)
        for evaluation in evaluations {
            print(evaluation.row)
            totals.add(evaluation)
        }
        print(totals.row + "\n")

        for evaluation in evaluations where Self.silent.contains(evaluation.scenario) {
            #expect(evaluation.ours.falseAlarms == 0, "\(evaluation.scenario)")
            #expect(evaluation.oursUpper.falseAlarms == 0, "\(evaluation.scenario)")
        }
        // Fewer false alarms than predict_linear, over the history points or over scrapes.
        #expect(totals.ours.falseAlarms <= totals.predictLinearPoints.falseAlarms)
        #expect(totals.ours.falseAlarms <= totals.predictLinearScrapes.falseAlarms)
        // And no more misses (the runaway log's 16 hours before it starts count for all).
        #expect(totals.ours.misses <= totals.predictLinearPoints.misses)
        #expect(totals.ours.misses <= totals.predictLinearScrapes.misses)
        // Steady, bursty and late-starting growth: every hour of the last day flagged.
        for name in [TrendScenario.steadyGrowth.name, TrendScenario.burstyGrowth.name, TrendScenario.lateStart.name] {
            #expect(evaluations.first { $0.scenario == name }?.ours.misses == 0, "\(name)")
        }
    }

    /// The noise and both cron jobs under ten other seeds each: still never an estimate.
    @Test func otherSeedsStaySilent() {
        var totals = TrendEvaluation.Totals()
        for seed in UInt64(100)..<110 {
            for scenario in [TrendScenario.noisyPlateau(seed: seed), .cronSpike(seed: seed), .slowCronSpike(seed: seed)] {
                let evaluation = TrendEvaluation(scenario)
                #expect(evaluation.estimates.allSatisfy { $0.estimate == nil }, "\(scenario.name), seed \(seed)")
                totals.add(evaluation)
            }
        }
        print("\nnoise around a plateau and both daily cron jobs, seeds 100–109 (\(totals.evaluations) evaluations):")
        print(TrendEvaluation.header)
        print(totals.row + "\n")
    }
}

extension TrendEvaluation {
    struct Totals {
        var evaluations = 0, positives = 0
        var ours = Score(), oursUpper = Score(), predictLinearPoints = Score(), predictLinearScrapes = Score()

        mutating func add(_ evaluation: TrendEvaluation) {
            evaluations += evaluation.evaluations
            positives += evaluation.positives
            for (total, part) in [(\Totals.ours, evaluation.ours), (\.oursUpper, evaluation.oursUpper),
                                  (\.predictLinearPoints, evaluation.predictLinearPoints),
                                  (\.predictLinearScrapes, evaluation.predictLinearScrapes)] {
                self[keyPath: total].falseAlarms += part.falseAlarms
                self[keyPath: total].misses += part.misses
            }
        }

        var row: String {
            "| **total** | \(evaluations) | \(positives) | \(ours.falseAlarms) | \(ours.misses) | \(oursUpper.falseAlarms) | \(oursUpper.misses) "
                + "| \(predictLinearPoints.falseAlarms) | \(predictLinearPoints.misses) | \(predictLinearScrapes.falseAlarms) | \(predictLinearScrapes.misses) |"
        }
    }
}
