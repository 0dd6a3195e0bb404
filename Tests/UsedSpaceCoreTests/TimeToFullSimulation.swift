import Testing
@testable import UsedSpaceCore

/// Synthetic disk-usage histories for the time-to-full tests, generated deterministically
/// (SplitMix64 with a fixed seed per scenario), and the daemon's recording of them.
///
/// A scenario is the true available space every `step` seconds. The daemon model records a
/// history point whenever the available space moved by at least 0.01 % of the filesystem
/// since the last point (the publish threshold) and at least every 15 minutes; Prometheus is
/// modelled as scraping the true value every minute.
struct TrendScenario: Sendable, CustomTestStringConvertible {
    static let start: Int64 = 1_700_006_400 // 2023-11-15T00:00:00Z
    static let step: Int64 = 10
    static let total: UInt64 = 500_000_000_000
    static let day: Int64 = 86_400
    static let hour: Int64 = 3600

    var name: String
    /// The true available bytes at `start + index · step`.
    var available: [UInt64]

    var testDescription: String { name }

    /// The first time the filesystem is full (nothing available), if it ever is.
    var fillTime: Int64? {
        available.firstIndex(of: 0).map { Self.start + Int64($0) * Self.step }
    }

    /// Builds a scenario from a function of (seconds since start, generator) giving the
    /// fraction of the filesystem available; stops at `days`, or one step after it is full
    /// when `stopWhenFull`.
    static func make(_ name: String, days: Double, seed: UInt64, stopWhenFull: Bool = false,
                     _ fraction: (Int64, inout SplitMix64) -> Double) -> TrendScenario {
        var generator = SplitMix64(seed: seed)
        var values: [UInt64] = []
        let steps = Int(days * Double(day) / Double(step))
        for index in 0...steps {
            let share = min(1, max(0, fraction(Int64(index) * step, &generator)))
            values.append(UInt64(share * Double(total)))
            if stopWhenFull && values.last == 0 { break }
        }
        return TrendScenario(name: name, available: values)
    }

    /// The daemon's record of this scenario up to `until`: a point whenever the available
    /// space moved by 0.01 % of the filesystem since the last point, and every 15 minutes.
    func record(until: Int64? = nil, into history: UsageHistory = UsageHistory()) -> UsageHistory {
        var history = history
        var recorder = Recorder()
        for (index, value) in available.enumerated() {
            let time = Self.start + Int64(index) * Self.step
            if let until, time > until { break }
            recorder.observe(value, at: time, into: &history)
        }
        return history
    }

    /// The daemon model, one sample at a time.
    struct Recorder {
        var last: UsageHistory.Point?

        mutating func observe(_ value: UInt64, at time: Int64, into history: inout UsageHistory) {
            let threshold = TrendScenario.total / 10_000
            if let last {
                let moved = value > last.availableBytes ? value - last.availableBytes : last.availableBytes - value
                guard moved >= threshold || time - last.secondsSinceEpoch >= 900 else { return }
            }
            let point = UsageHistory.Point(secondsSinceEpoch: time, availableBytes: value)
            history.append(point)
            last = point
        }
    }

    /// A standard normal variate (Irwin–Hall: the sum of 12 uniforms minus 6).
    static func normal(_ generator: inout SplitMix64) -> Double {
        var sum = 0.0
        for _ in 0..<12 { sum += Double(generator.next() >> 11) / Double(1 << 53) }
        return sum - 6
    }

    /// An AR(1) process with standard deviation `sigma` and correlation time `tau` seconds.
    struct Jitter {
        var value = 0.0
        let sigma: Double
        let tau: Double

        mutating func next(_ generator: inout SplitMix64) -> Double {
            let phi = 1 - Double(TrendScenario.step) / tau
            value = phi * value + sigma * (1 - phi * phi).squareRoot() * TrendScenario.normal(&generator)
            return value
        }
    }

    /// Share of the filesystem held by a temporary file written over `ramp` seconds from
    /// `start` and deleted at once `hold` seconds later.
    static func pulse(_ t: Int64, start: Int64, ramp: Int64, hold: Int64, size: Double) -> Double {
        if t < start || t >= start + ramp + hold { return 0 }
        return t < start + ramp ? size * Double(t - start) / Double(ramp) : size
    }

    /// A write of `size` spread over `ramp` seconds from `start`, kept.
    static func ramp(_ t: Int64, start: Int64, ramp: Int64, size: Double) -> Double {
        if t < start { return 0 }
        return t >= start + ramp ? size : size * Double(t - start) / Double(ramp)
    }

    static let all: [TrendScenario] = [
        steadyGrowth, burstyGrowth, noisyGrowth, lateStart, runaway, cronSpike, slowCronSpike, cronSpikeOnSlowGrowth,
        deletion, burstThenPlateau, noisyPlateau, shrinking,
    ]

    /// 45 % available, filled at a constant rate in 3 days, with a little jitter.
    static func steadyGrowth(seed: UInt64 = 1) -> TrendScenario {
        var jitter = Jitter(sigma: 0.00005, tau: 600)
        return make("steady growth (full in 3 days)", days: 3.2, seed: seed, stopWhenFull: true) { t, g in
            0.45 - 0.15 * Double(t) / Double(day) + jitter.next(&g)
        }
    }
    static let steadyGrowth = steadyGrowth()

    /// 45 % available; every 4 hours a job writes 2 % in 5 minutes and keeps it: full in ~3.8 days.
    static func burstyGrowth(seed: UInt64 = 2) -> TrendScenario {
        var jitter = Jitter(sigma: 0.00005, tau: 600)
        return make("bursty growth (2 % every 4 h)", days: 4, seed: seed, stopWhenFull: true) { t, g in
            var written = 0.0
            var burst: Int64 = 2 * hour
            while burst <= t {
                written += ramp(t, start: burst, ramp: 300, size: 0.02)
                burst += 4 * hour
            }
            return 0.45 - written + jitter.next(&g)
        }
    }
    static let burstyGrowth = burstyGrowth()

    /// 30 % available, filled at a constant rate in 4 days, under the noise of `noisyPlateau`.
    static func noisyGrowth(seed: UInt64 = 11) -> TrendScenario {
        var jitter = Jitter(sigma: 0.015, tau: 1800)
        return make("noisy growth (full in 4 days, σ 1.5 %)", days: 4.2, seed: seed, stopWhenFull: true) { t, g in
            0.30 - 0.075 * Double(t) / Double(day) + jitter.next(&g)
        }
    }
    static let noisyGrowth = noisyGrowth()

    /// Flat at 40 % for 3 days, then filled at a constant rate in 36 hours.
    static func lateStart(seed: UInt64 = 3) -> TrendScenario {
        var jitter = Jitter(sigma: 0.00005, tau: 600)
        return make("growth starting on day 3 (full in 36 h)", days: 5, seed: seed, stopWhenFull: true) { t, g in
            let growing = max(0, t - 3 * day)
            return 0.40 - 0.40 * Double(growing) / Double(36 * hour) + jitter.next(&g)
        }
    }
    static let lateStart = lateStart()

    /// Flat at 30 % for a day, then a runaway log fills it in 8 hours.
    static func runaway(seed: UInt64 = 4) -> TrendScenario {
        var jitter = Jitter(sigma: 0.00005, tau: 600)
        return make("runaway log (full in 8 h)", days: 2, seed: seed, stopWhenFull: true) { t, g in
            let growing = max(0, t - day)
            return 0.30 - 0.30 * Double(growing) / Double(8 * hour) + jitter.next(&g)
        }
    }
    static let runaway = runaway()

    /// 20 % available; every day at 03:00 a job writes a temporary file of 10 % of the disk
    /// in 5 minutes and deletes it 15 minutes later.
    static func cronSpike(seed: UInt64 = 5) -> TrendScenario {
        var jitter = Jitter(sigma: 0.00005, tau: 600)
        return make("daily cron spike (10 % for 20 min)", days: 10, seed: seed) { t, g in
            0.20 - pulse(t % day, start: 3 * hour, ramp: 300, hold: 900, size: 0.10) + jitter.next(&g)
        }
    }
    static let cronSpike = cronSpike()

    /// 20 % available; every day at 03:00 a job writes 10 % of the disk slowly, over 55
    /// minutes, and deletes it 5 minutes later: still within the hour.
    static func slowCronSpike(seed: UInt64 = 12) -> TrendScenario {
        var jitter = Jitter(sigma: 0.00005, tau: 600)
        return make("daily cron job writing 10 % over 55 min", days: 10, seed: seed) { t, g in
            0.20 - pulse(t % day, start: 3 * hour, ramp: 3300, hold: 300, size: 0.10) + jitter.next(&g)
        }
    }
    static let slowCronSpike = slowCronSpike()

    /// The same spike on top of slow growth: 60 % available, 3 % a day (full in 20 days).
    static func cronSpikeOnSlowGrowth(seed: UInt64 = 6) -> TrendScenario {
        var jitter = Jitter(sigma: 0.00005, tau: 600)
        return make("cron spike on slow growth (full in 20 days)", days: 10, seed: seed) { t, g in
            0.60 - 0.03 * Double(t) / Double(day)
                - pulse(t % day, start: 3 * hour, ramp: 300, hold: 900, size: 0.10) + jitter.next(&g)
        }
    }
    static let cronSpikeOnSlowGrowth = cronSpikeOnSlowGrowth()

    /// 30 % available; on day 3, 30 % of the disk is deleted in 10 minutes; flat after.
    static func deletion(seed: UInt64 = 7) -> TrendScenario {
        var jitter = Jitter(sigma: 0.00005, tau: 600)
        return make("one-off deletion (30 %)", days: 7, seed: seed) { t, g in
            0.30 + ramp(t, start: 3 * day, ramp: 600, size: 0.30) + jitter.next(&g)
        }
    }
    static let deletion = deletion()

    /// 35 % available; on day 2, 25 % is written in 30 minutes (a copied disk image) and kept.
    static func burstThenPlateau(seed: UInt64 = 8) -> TrendScenario {
        var jitter = Jitter(sigma: 0.00005, tau: 600)
        return make("single burst then plateau (25 %)", days: 7, seed: seed) { t, g in
            0.35 - ramp(t, start: 2 * day + 10 * hour, ramp: 1800, size: 0.25) + jitter.next(&g)
        }
    }
    static let burstThenPlateau = burstThenPlateau()

    /// 12 % available with noise: 1.5 % standard deviation, 30-minute correlation time.
    static func noisyPlateau(seed: UInt64 = 9) -> TrendScenario {
        var jitter = Jitter(sigma: 0.015, tau: 1800)
        return make("noise around a plateau (σ 1.5 %)", days: 10, seed: seed) { _, g in
            0.12 + jitter.next(&g)
        }
    }
    static let noisyPlateau = noisyPlateau()

    /// 10 % available, freed at 5 % a day.
    static func shrinking(seed: UInt64 = 10) -> TrendScenario {
        var jitter = Jitter(sigma: 0.00005, tau: 600)
        return make("shrinking usage (5 % a day freed)", days: 7, seed: seed) { t, g in
            0.10 + 0.05 * Double(t) / Double(day) + jitter.next(&g)
        }
    }
    static let shrinking = shrinking()
}

/// Replays a scenario through the daemon model and evaluates, every hour, our estimate and
/// `predict_linear(avail[6h], 24h) < 0`, against whether the disk really fills within 24 h.
struct TrendEvaluation: Sendable {
    struct Score: Equatable, Sendable {
        var falseAlarms = 0
        var misses = 0
    }

    var scenario: String
    var evaluations = 0
    /// Evaluations at which the disk does fill within the next 24 h.
    var positives = 0
    /// Ours, alarm when the lower bound is under 24 h.
    var ours = Score()
    /// Ours, alarm when the upper bound is under 24 h (the proposed alert rule).
    var oursUpper = Score()
    /// predict_linear over the history points.
    var predictLinearPoints = Score()
    /// predict_linear over one-minute scrapes of the true value.
    var predictLinearScrapes = Score()
    var historyPoints = 0
    /// Every estimate made, by evaluation time.
    var estimates: [(time: Int64, estimate: TimeToFull?)] = []

    static let horizon: Int64 = 86_400

    init(_ scenario: TrendScenario, estimator: TimeToFullEstimator = TimeToFullEstimator(), evaluateEvery: Int64 = 3600) {
        self.scenario = scenario.name
        let total = TrendScenario.total
        var history = UsageHistory()
        var scrapes: [PredictLinear.Sample] = []
        var recorder = TrendScenario.Recorder()
        let fill = scenario.fillTime
        for (index, value) in scenario.available.enumerated() {
            let time = TrendScenario.start + Int64(index) * TrendScenario.step
            recorder.observe(value, at: time, into: &history)
            if time % 60 == 0 {
                scrapes.append(PredictLinear.Sample(secondsSinceEpoch: time, value: Double(value)))
            }
            let elapsed = time - TrendScenario.start
            guard elapsed > 0, elapsed % evaluateEvery == 0 else { continue }
            if let fill, fill <= time { break }
            evaluations += 1
            let truth = fill.map { $0 - time <= Self.horizon } ?? false
            if truth { positives += 1 }
            let estimate = estimator.estimate(history, now: time, totalBytes: total)
            estimates.append((time, estimate))
            Self.score(&ours, alarm: estimate.map { $0.lowerSeconds < Self.horizon } ?? false, truth: truth)
            Self.score(&oursUpper, alarm: estimate.map { $0.upperSeconds < Self.horizon } ?? false, truth: truth)
            Self.score(&predictLinearPoints, alarm: PredictLinear.alertFires(history, at: time), truth: truth)
            let recent = scrapes.suffix(400)
            Self.score(&predictLinearScrapes, alarm: (PredictLinear.predict(Array(recent), at: time) ?? 0) < 0, truth: truth)
        }
        historyPoints = history.count
    }

    static func score(_ score: inout Score, alarm: Bool, truth: Bool) {
        if alarm && !truth { score.falseAlarms += 1 }
        if !alarm && truth { score.misses += 1 }
    }

    /// A Markdown table row.
    var row: String {
        "| \(scenario) | \(evaluations) | \(positives) | \(ours.falseAlarms) | \(ours.misses) | \(oursUpper.falseAlarms) | \(oursUpper.misses) "
            + "| \(predictLinearPoints.falseAlarms) | \(predictLinearPoints.misses) | \(predictLinearScrapes.falseAlarms) | \(predictLinearScrapes.misses) |"
    }

    static let header = """
        | history | evaluations | fills within 24 h | ours: false alarms | ours: misses | ours (upper < 24 h): false alarms | ours (upper < 24 h): misses | predict_linear on history points: false alarms | misses | predict_linear on 1-min scrapes: false alarms | misses |
        |---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
        """
}
