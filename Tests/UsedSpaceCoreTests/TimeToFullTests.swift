import Testing
@testable import UsedSpaceCore

private let day: Int64 = 86_400
private let hour: Int64 = 3600
private let start = TrendScenario.start
private let total = TrendScenario.total

/// Records a scenario the way the daemon does (see `TrendScenario.record`) up to `until`.
private func record(_ scenario: TrendScenario, until: Int64? = nil, history: UsageHistory = UsageHistory()) -> UsageHistory {
    scenario.record(until: until, into: history)
}

@Suite struct TimeToFullHistoryTests {
    @Test func ignoresOutOfOrderAndDuplicateTimes() {
        var history = UsageHistory()
        let accepted = [(100, 5), (100, 6), (50, 7), (101, 8)].map { history.append(secondsSinceEpoch: $0, availableBytes: $1) }
        #expect(accepted == [true, false, false, true])
        #expect(history.points.map(\.availableBytes) == [5, 8])
    }

    @Test func aClockStepBackOfMoreThanADayStartsOver() {
        var history = UsageHistory()
        history.append(secondsSinceEpoch: 10 * day, availableBytes: 1)
        history.append(secondsSinceEpoch: 10 * day + 60, availableBytes: 2)
        let littleBack = history.append(secondsSinceEpoch: 9 * day + 60, availableBytes: 3)
        #expect(!littleBack)
        let farBack = history.append(secondsSinceEpoch: 9 * day - 1, availableBytes: 4)
        #expect(farBack)
        #expect(history.points == [UsageHistory.Point(secondsSinceEpoch: 9 * day - 1, availableBytes: 4)])
    }

    @Test func dropsWhatIsOlderThanTheRetention() {
        var history = UsageHistory(retentionSeconds: 2 * day)
        for quarter in 0..<(3 * 24 * 4) {
            history.append(secondsSinceEpoch: Int64(quarter) * 900, availableBytes: 1)
        }
        let newest = history.last!.secondsSinceEpoch
        #expect(history.points.first!.secondsSinceEpoch == newest - 2 * day)
        #expect(history.count == 2 * 24 * 4 + 1)
    }

    /// 14 days of a point a minute: thinned to the capacity, still reaching back two weeks,
    /// every point of the last hour kept, and the spacing growing with age.
    @Test func thinsByAgeAndKeepsTheLongWindowsCovered() {
        var history = UsageHistory()
        let minutes = 14 * 24 * 60
        var largest = 0
        for minute in 0..<minutes {
            history.append(secondsSinceEpoch: Int64(minute) * 60, availableBytes: UInt64(minutes - minute))
            largest = max(largest, history.count)
        }
        #expect(largest == UsageHistory.defaultCapacity)
        let newest = history.last!.secondsSinceEpoch
        let points = history.points
        #expect(points.first!.secondsSinceEpoch == 0)
        #expect(points.filter { $0.secondsSinceEpoch > newest - hour }.count == 60)
        // A gap between points is at most about two bucket widths: age / 64 (+ a minute).
        for (before, after) in zip(points, points.dropFirst()) {
            let gap = after.secondsSinceEpoch - before.secondsSinceEpoch
            let age = newest - after.secondsSinceEpoch
            #expect(gap <= age / 60 + 60, "gap \(gap) s at age \(age) s")
        }
        for window in [hour, 6 * hour, day, 7 * day] {
            #expect(points.filter { $0.secondsSinceEpoch >= newest - window }.count >= 24, "window \(window)")
        }
    }

    /// A burst of publishes (one every 10 s for a day) never exceeds the capacity and keeps
    /// the older days.
    @Test func thinsABurstOfPublishes() {
        var history = UsageHistory(capacity: 256)
        for index in 0..<(3 * 24 * 4) { history.append(secondsSinceEpoch: Int64(index) * 900, availableBytes: 10) }
        let burstStart = history.last!.secondsSinceEpoch + 900
        var largest = 0
        for index in 0..<8640 {
            history.append(secondsSinceEpoch: burstStart + Int64(index) * 10, availableBytes: UInt64(index))
            largest = max(largest, history.count)
        }
        #expect(largest == 256)
        #expect(history.points.first!.secondsSinceEpoch == 0)
    }

    @Test func encodesAndDecodesExactly() throws {
        var history = UsageHistory()
        history.append(secondsSinceEpoch: -5, availableBytes: 0)
        history.append(secondsSinceEpoch: 1000, availableBytes: UInt64.max)
        history.append(secondsSinceEpoch: 1001, availableBytes: 42)
        let text = history.encode()
        #expect(text == #"{"version":1,"points":[[-5,0],[1000,18446744073709551615],[1001,42]]}"#)
        #expect(try UsageHistory(decoding: text) == history)
        #expect(try UsageHistory(decoding: UsageHistory().encode()) == UsageHistory())
        for extreme in [Int64.min, Int64.max] {
            var one = UsageHistory()
            one.append(secondsSinceEpoch: extreme, availableBytes: 1)
            #expect(try UsageHistory(decoding: one.encode()) == one)
        }
        let recorded = record(.burstyGrowth)
        #expect(try UsageHistory(decoding: recorded.encode()) == recorded)
        // Whitespace and unknown keys are fine.
        #expect(try UsageHistory(decoding: #" { "points" : [ [ -5 , 0 ] ] , "note": "x", "version" : 1 } "#).points == [history.points[0]])
    }

    @Test func decodingPrunesToTheReadersLimits() throws {
        let recorded = record(.cronSpike)
        let smaller = try UsageHistory(decoding: recorded.encode(), capacity: 100, retentionSeconds: 2 * day)
        #expect(smaller.count <= 100)
        #expect(smaller.last == recorded.last)
        #expect(smaller.points.first!.secondsSinceEpoch >= recorded.last!.secondsSinceEpoch - 2 * day)
    }

    @Test(arguments: [
        ("", "invalid JSON"), ("[]", "not a JSON object"), ("{}", "'version'"),
        (#"{"version":2,"points":[]}"#, "version 2"), (#"{"version":"1","points":[]}"#, "(not an integer)"),
        (#"{"version":1}"#, "'points'"), (#"{"version":1,"points":{}}"#, "point 0"),
        (#"{"version":1,"points":[[1]]}"#, "point 0"), (#"{"version":1,"points":[[1,2,3]]}"#, "point 0"),
        (#"{"version":1,"points":[[1,-2]]}"#, "point 0"), (#"{"version":1,"points":[[1.5,2]]}"#, "point 0"),
        (#"{"version":1,"points":[[1,2],["3",4]]}"#, "point 1"), (#"{"version":1,"points":[[1,2],[3,1e3]]}"#, "point 1"),
        (#"{"version":1,"points":[[9223372036854775808,1]]}"#, "point 0"),
        (#"{"version":1,"points":[[1,18446744073709551616]]}"#, "point 0"),
        (#"{"version":1,"points":[[5,1],[5,2]]}"#, "point 1 is not later"), (#"{"version":1,"points":[[5,1],[4,2]]}"#, "point 1 is not later"),
        (#"{"version":1,"points":[[[[[1]]]]]}"#, "nested deeper"),
    ])
    func rejectsMalformedHistories(_ text: String, _ message: String) {
        do {
            _ = try UsageHistory(decoding: text)
            Issue.record("decoded \(text)")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test func boundsWhatItReads() {
        let many = #"{"version":1,"points":["# + (0...UsageHistory.maximumDecodedPoints).map { "[\($0),1]" }.joined(separator: ",") + "]}"
        #expect(throws: UsageHistory.DecodingError.tooManyPoints(UsageHistory.maximumDecodedPoints + 1)) { try UsageHistory(decoding: many) }
        let long = #"{"version":1,"points":[],"pad":""# + String(repeating: "x", count: UsageHistory.maximumEncodedBytes) + #""}"#
        #expect(throws: UsageHistory.DecodingError.tooLarge(bytes: long.utf8.count)) { try UsageHistory(decoding: long) }
    }

    /// Random corruptions of a valid history: each decodes to a history or fails with a
    /// `DecodingError`, never traps.
    @Test func survivesCorruption() {
        let text = Array(record(.steadyGrowth, until: start + 6 * hour).encode().utf8)
        var generator = SplitMix64(seed: 0x7F11)
        let alphabet = Array(#"[]{},:"0123456789-.eE version points"#.utf8)
        var decoded = 0
        for _ in 0..<300 {
            var bytes = text
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let position = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
                }
            }
            if let history = try? UsageHistory(decoding: String(decoding: bytes, as: UTF8.self)) {
                decoded += 1
                #expect(zip(history.points, history.points.dropFirst()).allSatisfy { $0.secondsSinceEpoch < $1.secondsSinceEpoch })
            }
        }
        #expect(decoded < 300)
    }
}

@Suite struct TimeToFullEstimatorTests {
    let estimator = TimeToFullEstimator()

    /// Steady growth that fills the disk in 3 days: from 8 hours on (a third of the 24-hour
    /// window), every hourly estimate contains the true time to full (within 2 % or 15
    /// minutes: the true value has a little jitter) and is tight (upper ≤ 1.25 × lower + 1 h).
    @Test func steadyGrowthContainsTheTruthAndIsTight() throws {
        let scenario = TrendScenario.steadyGrowth
        let fill = try #require(scenario.fillTime)
        let evaluation = TrendEvaluation(scenario)
        for (time, estimate) in evaluation.estimates where time >= start + 8 * hour {
            let estimate = try #require(estimate, "no estimate at \((time - start) / hour) h")
            let truth = Double(fill - time)
            #expect(Double(estimate.lowerSeconds) <= truth * 1.02 + 900, "at \((time - start) / hour) h: \(estimate) for \(truth / 3600) h")
            #expect(Double(estimate.upperSeconds) >= truth * 0.98 - 900, "at \((time - start) / hour) h: \(estimate) for \(truth / 3600) h")
            #expect(Double(estimate.upperSeconds) <= 1.25 * Double(estimate.lowerSeconds) + 3600)
        }
        let halfway = try #require(estimator.estimate(record(scenario, until: start + 36 * hour), now: start + 36 * hour, totalBytes: total))
        #expect(halfway.windowSeconds == [2 * hour, 6 * hour, day])
        #expect(halfway.description == "full in 1–2 days")
    }

    /// Steps of 2 % every 4 hours: reported from the 24-hour window on, with a range that
    /// stays within the true time's neighbourhood (a step's worth, 4 hours, and 5 % either
    /// side: on a staircase the true time is that of the step that fills it).
    @Test func burstyGrowthIsReported() throws {
        let scenario = TrendScenario.burstyGrowth
        let fill = try #require(scenario.fillTime)
        let evaluation = TrendEvaluation(scenario)
        let late = evaluation.estimates.filter { $0.time >= start + 24 * hour }
        #expect(late.allSatisfy { $0.estimate != nil })
        for (time, estimate) in late {
            let estimate = try #require(estimate)
            let truth = fill - time
            let slack = 4 * hour + truth / 20
            #expect(estimate.lowerSeconds <= truth + slack, "at \((time - start) / hour) h: \(estimate) for \(Double(truth) / 3600) h")
            #expect(estimate.upperSeconds >= truth - slack,
                    "at \((time - start) / hour) h: \(estimate) for \(Double(truth) / 3600) h")
            #expect(estimate.windowSeconds.contains(day))
        }
    }

    /// The histories that must never produce an estimate, evaluated every 10 minutes: a daily
    /// cron job's temporary file (written in 5 minutes, or slowly over 55), a one-off deletion, one burst then a plateau, noise around
    /// a plateau, shrinking usage.
    @Test(arguments: [TrendScenario.cronSpike, .slowCronSpike, .deletion, .burstThenPlateau, .noisyPlateau, .shrinking])
    func saysNothing(_ scenario: TrendScenario) {
        let evaluation = TrendEvaluation(scenario, evaluateEvery: 600)
        let reported = evaluation.estimates.filter { $0.estimate != nil }
        #expect(reported.isEmpty, "\(reported.prefix(3).map { "\(($0.time - start) / 60) min: \($0.estimate!)" })")
    }

    /// Slow growth (full in 20 days) under the daily spike: never an alarm; when there is an
    /// estimate it is the slow growth's, weeks away.
    @Test func cronSpikeOnSlowGrowthGivesNoAlarm() {
        let evaluation = TrendEvaluation(.cronSpikeOnSlowGrowth, evaluateEvery: 600)
        let given = evaluation.estimates.compactMap { time, estimate in estimate.map { (time, $0) } }
        #expect(!given.isEmpty, "the slow growth gives an estimate at some point: the checks below check something")
        for (time, estimate) in given {
            #expect(estimate.lowerSeconds > 3 * day, "\((time - start) / 60) min: \(estimate)")
        }
    }

    /// Growth that started two hours ago after three flat days: nothing, or a range that
    /// contains the truth; and a little later, an estimate.
    @Test func growthThatJustStarted() throws {
        let scenario = TrendScenario.lateStart
        let fill = try #require(scenario.fillTime)
        for minutes in stride(from: 10, through: 120, by: 10) {
            let now = start + 3 * day + Int64(minutes) * 60
            if let estimate = estimator.estimate(record(scenario, until: now), now: now, totalBytes: total) {
                #expect(estimate.lowerSeconds <= fill - now && fill - now <= estimate.upperSeconds + 900, "\(minutes) min: \(estimate)")
            }
        }
        let now = start + 3 * day + 3 * hour
        #expect(estimator.estimate(record(scenario, until: now), now: now, totalBytes: total) != nil)
    }

    @Test func aFullDiskIsFullNow() throws {
        var history = UsageHistory()
        for minute in 0..<120 { history.append(secondsSinceEpoch: start + Int64(minute) * 60, availableBytes: UInt64(max(0, 60 - minute)) * 1_000_000) }
        let estimate = try #require(estimator.estimate(history, now: start + 7200, totalBytes: total))
        #expect(estimate == TimeToFull(lowerSeconds: 0, upperSeconds: 0, windowSeconds: []))
        #expect(estimate.description == "full now")
    }

    @Test func fewPointsGiveNothing() {
        var history = UsageHistory()
        #expect(estimator.estimate(history, now: start, totalBytes: total) == nil)
        for index in 0..<5 {
            history.append(secondsSinceEpoch: start + Int64(index) * 900, availableBytes: UInt64(100 - index * 20) * 1_000_000_000)
            #expect(estimator.estimate(history, now: start + Int64(index) * 900, totalBytes: total) == nil)
        }
        #expect(estimator.estimate(history, now: start + 3600, totalBytes: 0) == nil)
        #expect(estimator.analyze(history, now: start + 3600, totalBytes: total).allSatisfy { $0.verdict == .tooLittleData })
    }

    /// Duplicate times are dropped by the history; points after `now` are not looked at.
    @Test func ignoresDuplicatesAndTheFuture() {
        let scenario = TrendScenario.steadyGrowth
        let now = start + 30 * hour
        let recorded = record(scenario, until: now, history: UsageHistory(capacity: 100_000))
        var doubled = UsageHistory(capacity: 100_000)
        for point in recorded.points {
            doubled.append(point)
            doubled.append(UsageHistory.Point(secondsSinceEpoch: point.secondsSinceEpoch, availableBytes: 0))
        }
        #expect(doubled == recorded)
        var withFuture = recorded
        for later in 1...3 { withFuture.append(secondsSinceEpoch: now + Int64(later) * hour, availableBytes: 0) }
        let estimate = estimator.estimate(recorded, now: now, totalBytes: total)
        #expect(estimate != nil)
        #expect(estimator.estimate(withFuture, now: now, totalBytes: total) == estimate)
    }

    /// Extreme values: no trap, and sensible answers where there is one.
    @Test func extremeValuesDoNotOverflow() {
        for (time, step) in [(Int64.max - 1000 * 60, Int64(60)), (Int64.min, 60), (-1, 1), (0, Int64.max / 4000)] {
            for available in [UInt64.max, UInt64.max / 2, 1, 0] {
                var history = UsageHistory(capacity: 64)
                for index in 0..<1000 {
                    let (offset, overflow) = Int64(index).multipliedReportingOverflow(by: step)
                    guard !overflow else { break }
                    let (at, overflow2) = time.addingReportingOverflow(offset)
                    guard !overflow2 else { break }
                    history.append(secondsSinceEpoch: at, availableBytes: available &- UInt64(index) &* (available / 2000))
                }
                for now in [Int64.max, Int64.min, time, history.last?.secondsSinceEpoch ?? 0] {
                    for totalBytes in [UInt64.max, 1, 0] {
                        let estimate = estimator.estimate(history, now: now, totalBytes: totalBytes)
                        if let estimate { #expect(estimate.lowerSeconds <= estimate.upperSeconds && estimate.lowerSeconds >= 0) }
                        _ = PredictLinear.predict(history, at: now)
                        _ = estimate?.description
                    }
                }
            }
        }
        // A huge filesystem draining steadily: an estimate, and the right one.
        var history = UsageHistory()
        for minute in 0..<(2 * 24 * 60) {
            history.append(secondsSinceEpoch: start + Int64(minute) * 60, availableBytes: UInt64.max - UInt64(minute) * (UInt64.max / 10_000))
        }
        let now = history.last!.secondsSinceEpoch
        let estimate = estimator.estimate(history, now: now, totalBytes: UInt64.max)
        let truth = Double(history.last!.availableBytes) / Double(UInt64.max / 10_000) * 60
        #expect(estimate.map { Double($0.lowerSeconds) <= truth * 1.01 && Double($0.upperSeconds) >= truth * 0.99 } == true, "\(String(describing: estimate)) vs \(truth)")
    }

    @Test func verdictsExplainTheSilence() {
        // At the end of the slow cron job's write: a straight decline for 55 minutes, which
        // the 2-hour window sees as a step (its first third is flat).
        let now = start + 4 * day + 3 * hour + 3300
        let trends = estimator.analyze(record(.slowCronSpike, until: now), now: now, totalBytes: total)
        #expect(trends.map(\.windowSeconds) == [2 * hour, 6 * hour, day, 7 * day])
        #expect(trends.allSatisfy { $0.verdict != .significant })
        #expect(trends[0].verdict == .notSustained)
        #expect(trends[0].thirdSlopes[0] > trends[0].slope! / 3)
        // Growth after three flat days: the 2-hour window passes once the decline fills it.
        let later = start + 3 * day + 3 * hour
        let growing = estimator.analyze(record(.lateStart, until: later), now: later, totalBytes: total)
        #expect(growing[0].verdict == .significant)
        #expect(growing[0].routineRise.map { $0 < 0.001 * Double(total) } == true)
    }
}

@Suite struct TimeToFullRobustTrendTests {
    @Test func theilSenAndTauOfALine() throws {
        let times = (0..<50).map { Double($0) * 60 }
        let fit = try #require(RobustTrend.fit(times: times, values: times.map { 1000 - 2 * $0 }))
        #expect(fit.slope == -2)
        #expect(fit.tau == -1)
        #expect(fit.pairs == 50 * 49 / 2)
        let flat = try #require(RobustTrend.fit(times: times, values: times.map { _ in 7 }))
        #expect(flat.slope == 0 && flat.tau == 0)
    }

    /// A fifth of the points wildly off moves neither the slope much nor the sign of τ.
    @Test func outliersDoNotMoveIt() throws {
        var generator = SplitMix64(seed: 3)
        let times = (0..<100).map { Double($0) }
        let values = times.map { t -> Double in generator.next() % 5 == 0 ? 1e12 * Double(generator.next() % 3) : 500 - 3 * t }
        let fit = try #require(RobustTrend.fit(times: times, values: values))
        #expect(abs(fit.slope + 3) < 0.5)
        #expect(fit.tau < -0.3)
    }

    /// A staircase (many ties in value) still has τ-b close to −1.
    @Test func staircaseTau() throws {
        let times = (0..<60).map { Double($0) }
        let fit = try #require(RobustTrend.fit(times: times, values: times.map { -Double(Int($0) / 20) }))
        #expect(fit.tau < -0.8)
        #expect(fit.slope < 0)
    }

    /// Past the pair budget, lags are subsampled deterministically and the answer barely moves.
    @Test func subsamplesPairsBeyondTheBudget() throws {
        var generator = SplitMix64(seed: 9)
        let times = (0..<400).map { Double($0) * 10 }
        let values = times.map { 1e9 - 1000 * $0 + Double(generator.next() % 200_000) }
        let full = try #require(RobustTrend.fit(times: times, values: values, maximumPairs: .max))
        let sampled = try #require(RobustTrend.fit(times: times, values: values, maximumPairs: 20_000))
        #expect(full.pairs == 400 * 399 / 2)
        #expect(sampled.pairs <= 20_000 + 400)
        #expect(abs(sampled.slope - full.slope) < 20)
        #expect(abs(sampled.tau - full.tau) < 0.05)
        #expect(RobustTrend.fit(times: times, values: values, maximumPairs: 20_000) == sampled)
    }

    @Test func selectAgreesWithSorting() {
        var generator = SplitMix64(seed: 11)
        for count in [1, 2, 3, 10, 101, 1000] {
            for _ in 0..<20 {
                let values = (0..<count).map { _ in Double(generator.next() % 7) - 3 }
                let sorted = values.sorted()
                let k = Int(generator.next() % UInt64(count))
                var copy = values
                let selected = RobustTrend.select(&copy, k)
                #expect(selected == sorted[k])
                #expect(copy[..<k].allSatisfy { $0 <= selected } && copy[k...].allSatisfy { $0 >= selected })
                var forMedian = values
                let median = count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2
                let computed = RobustTrend.median(&forMedian)
                #expect(computed == median)
            }
        }
    }
}

@Suite struct TimeToFullPredictLinearTests {
    typealias Sample = PredictLinear.Sample

    /// Least squares by hand: y = 10, 8, 9, 5 at t = 0, 60, 120, 180, evaluated at t = 240, so
    /// x = −240, −180, −120, −60 (x̄ = −150, ȳ = 8): Σ(x−x̄)(y−ȳ) = −180 + 0 + 30 − 270 = −420,
    /// Σ(x−x̄)² = 18000, slope = −420/18000 per second, intercept = ȳ − slope·x̄ = 8 − 3.5 = 4.5
    /// (the fitted value at the evaluation time).
    @Test func leastSquaresRelativeToTheEvaluationTime() throws {
        let samples = [Sample(secondsSinceEpoch: 0, value: 10), Sample(secondsSinceEpoch: 60, value: 8),
                       Sample(secondsSinceEpoch: 120, value: 9), Sample(secondsSinceEpoch: 180, value: 5)]
        let (slope, intercept) = PredictLinear.linearRegression(samples, interceptTime: 240)
        #expect(abs(slope - (-420.0 / 18000)) < 1e-15)
        #expect(abs(intercept - 4.5) < 1e-12)
        let predicted = try #require(PredictLinear.predict(samples, at: 240, rangeSeconds: 3600, horizonSeconds: 100))
        #expect(abs(predicted - (intercept + 100 * slope)) < 1e-12)
    }

    @Test func aLineIsExtrapolatedExactly() throws {
        let samples = (0..<360).map { Sample(secondsSinceEpoch: 1_700_000_000 + Int64($0) * 60, value: 5e11 - 1e6 * Double($0 * 60)) }
        let now: Int64 = 1_700_000_000 + 359 * 60
        let predicted = try #require(PredictLinear.predict(samples, at: now))
        #expect(abs(predicted - (5e11 - 1e6 * Double(359 * 60 + 86_400))) < 1)
    }

    @Test func specialCases() {
        #expect(PredictLinear.predict([], at: 0) == nil)
        #expect(PredictLinear.predict([Sample(secondsSinceEpoch: 0, value: 1)], at: 0) == nil)
        let constant = [Sample(secondsSinceEpoch: 0, value: 3), Sample(secondsSinceEpoch: 10, value: 3)]
        #expect(PredictLinear.linearRegression(constant, interceptTime: 100) == (0, 3))
        let infinite = [Sample(secondsSinceEpoch: 0, value: .infinity), Sample(secondsSinceEpoch: 10, value: .infinity)]
        #expect(PredictLinear.linearRegression(infinite, interceptTime: 0).slope.isNaN)
    }

    /// The range is left-open: a sample exactly 6 h old is out.
    @Test func rangeIsLeftOpen() throws {
        let samples = [Sample(secondsSinceEpoch: 0, value: 0), Sample(secondsSinceEpoch: 60, value: 100), Sample(secondsSinceEpoch: 120, value: 100)]
        let withoutFirst = try #require(PredictLinear.predict(samples, at: 21_600, horizonSeconds: 0))
        #expect(withoutFirst == 100)
        let withFirst = try #require(PredictLinear.predict(samples, at: 21_599, horizonSeconds: 0))
        #expect(withFirst != 100)
    }

    /// Over a history it uses the points as samples.
    @Test func overAHistory() throws {
        var history = UsageHistory()
        var samples: [Sample] = []
        var generator = SplitMix64(seed: 5)
        var time: Int64 = 1_700_000_000
        for _ in 0..<500 {
            time += Int64(1 + generator.next() % 300)
            let value = generator.next() % 1_000_000_000_000
            history.append(secondsSinceEpoch: time, availableBytes: value)
            samples.append(Sample(secondsSinceEpoch: time, value: Double(value)))
        }
        for now in [time, time - 3600, time + 3600] {
            #expect(PredictLinear.predict(history, at: now) == PredictLinear.predict(samples, at: now))
        }
    }

    /// Kahan–Neumaier: adding a tiny value to a huge one is not lost.
    @Test func compensatedSums() {
        var (sum, c) = (0.0, 0.0)
        for value in [1e16, 1, 1, -1e16] { (sum, c) = PredictLinear.kahanIncrement(value, sum, c) }
        #expect(sum + c == 2)
    }
}

@Suite struct TimeToFullFormattingTests {
    @Test(arguments: [
        (40 * 60, 55 * 60, "full in 40–55 minutes"),
        (3 * 3600, 5 * 3600, "full in 3–5 hours"),
        (2 * 86_400 + 3600, 3 * 86_400 - 3600, "full in 2–3 days"),
        (13 * 86_400, 15 * 86_400, "full in about 2 weeks"),
        (3 * 86_400 + 10 * 3600, 4 * 86_400 + 13 * 3600, "full in 3–5 days"),
        (2 * 86_400 + 13 * 3600, 3 * 86_400 + 11 * 3600, "full in about 3 days"),
        (59 * 60, 61 * 60, "full in 59–61 minutes"),
        (50 * 60, 100 * 60, "full in 1–2 hours"),
        (59 * 60 + 40, 60 * 60 + 20, "full in about 60 minutes"),
        (3600, 30 * 3600, "full in 1–30 hours"),
        (20 * 60, 5 * 3600, "full in 20 minutes – 5 hours"),
        (20 * 3600, 20 * 86_400, "full in 20 hours – 3 weeks"),
        (10, 5 * 3600, "full in less than 5 hours"),
        (10, 600, "full in less than 10 minutes"),
        (0, 20, "full in less than a minute"),
        (0, 0, "full now"),
        (40, 80, "full in about 1 minute"),
        (86_400, 86_400 * 2, "full in 1–2 days"),
        (90 * 86_400, 200 * 86_400, "full in 13–29 weeks"),
        (Int64.max, Int64.max, "full in about 15250284452472 weeks"),
        (5 * 3600, 3 * 3600, "full in 3–5 hours"),
        (-100, -5, "full now"),
    ] as [(Int64, Int64, String)])
    func describesRanges(_ lower: Int64, _ upper: Int64, _ expected: String) {
        #expect(TimeToFull.describe(lowerSeconds: lower, upperSeconds: upper) == expected)
    }

    @Test func normalisesItsBounds() {
        let estimate = TimeToFull(lowerSeconds: 500, upperSeconds: -3, windowSeconds: [3600])
        #expect(estimate.lowerSeconds == 0 && estimate.upperSeconds == 500)
        #expect(TimeToFull(lowerSeconds: 2 * 86_400, upperSeconds: 4 * 86_400).description == "full in 2–4 days")
    }
}
