import Testing
@testable import UsedSpaceCore

/// Second-by-second traces of a filesystem's available space for the fast-fill detector
/// (docs/fast-fill.md), generated deterministically (SplitMix64, fixed seeds): fills that
/// really fill it, and events that do not (a download that completes, a build that cleans
/// up, a cron job's temporary file, noise).
struct FillTrace: Sendable, CustomTestStringConvertible {
    static let megabyte = 1_000_000.0
    static let gigabyte = 1_000_000_000.0
    /// Quiet seconds before anything happens.
    static let quiet = 600

    var name: String
    var totalBytes: UInt64
    /// The true available bytes at each second.
    var available: [UInt64]
    /// When the writing starts (for the detection time) and, for events that stop, ends.
    var writeStart: Int
    var writeEnd: Int?

    var testDescription: String { name }

    /// Whether the filesystem is ever full in this trace.
    var fills: Bool { available.contains(0) }

    /// The first second at which the filesystem is full, from each second on: what "full
    /// within the hour" is judged against.
    var nextFull: [Int?] {
        var result = [Int?](repeating: nil, count: available.count)
        var next: Int?
        for second in available.indices.reversed() {
            if available[second] == 0 { next = second }
            result[second] = next
        }
        return result
    }

    static func make(_ name: String, total: Double, seconds: Int, writeStart: Int = quiet, writeEnd: Int? = nil,
                     _ availableAt: (Int) -> Double) -> FillTrace {
        var values: [UInt64] = []
        for second in 0..<seconds {
            values.append(UInt64(max(0, min(total, availableAt(second)))))
        }
        return FillTrace(name: name, totalBytes: UInt64(total), available: values, writeStart: writeStart, writeEnd: writeEnd)
    }

    /// A constant fill from `quiet` on until full, then a minute at 0.
    static func steady(_ name: String, total: Double, free: Double, rate: Double) -> FillTrace {
        let seconds = quiet + Int((free / rate).rounded(.up)) + 60
        return make(name, total: total, seconds: seconds) { second in
            second < quiet ? free : free - rate * Double(second - quiet)
        }
    }

    /// `size` written at `rate` from `quiet` on and kept; 30 minutes more after it ends.
    static func download(_ name: String, total: Double, free: Double, size: Double, rate: Double) -> FillTrace {
        let duration = Int((size / rate).rounded(.up))
        return make(name, total: total, seconds: quiet + duration + 1800, writeEnd: quiet + duration) { second in
            free - min(size, max(0, rate * Double(second - quiet)))
        }
    }

    /// A temporary file of `size` written over `writing` seconds, deleted `kept` seconds later.
    static func temporaryFile(_ name: String, total: Double, free: Double, size: Double, writing: Int, kept: Int) -> FillTrace {
        make(name, total: total, seconds: quiet + writing + kept + 1800, writeEnd: quiet + writing) { second in
            if second < quiet || second >= quiet + writing + kept { return free }
            return second < quiet + writing ? free - size * Double(second - quiet) / Double(writing) : free - size
        }
    }

    static let steady50 = steady("steady 50 MB/s, 10 GB free", total: 100 * gigabyte, free: 10 * gigabyte, rate: 50 * megabyte)
    static let steady10 = steady("steady 10 MB/s, 10 GB free", total: 100 * gigabyte, free: 10 * gigabyte, rate: 10 * megabyte)
    static let steady200 = steady("steady 200 MB/s, 50 GB free", total: 500 * gigabyte, free: 50 * gigabyte, rate: 200 * megabyte)
    static let steady1000 = steady("steady 1 GB/s, 100 GB free", total: 1000 * gigabyte, free: 100 * gigabyte, rate: 1000 * megabyte)
    static let steady2 = steady("steady 2 MB/s, 5 GB free", total: 100 * gigabyte, free: 5 * gigabyte, rate: 2 * megabyte)

    /// A log written in bursts: 40–120 MB every 3–7 s (20 MB/s on average) until full.
    static func runawayLog(seed: UInt64 = 21) -> FillTrace {
        var generator = SplitMix64(seed: seed)
        let free = 8 * gigabyte
        var values: [UInt64] = []
        var available = free
        var nextWrite = quiet
        var second = 0
        while available > 0 || values.last != 0 {
            if second >= nextWrite {
                available = max(0, available - Double(40 + generator.next() % 81) * megabyte)
                nextWrite = second + 3 + Int(generator.next() % 5)
            }
            values.append(UInt64(available))
            second += 1
        }
        values += [UInt64](repeating: 0, count: 60)
        return FillTrace(name: "runaway log, 20 MB/s in bursts, 8 GB free", totalBytes: UInt64(100 * gigabyte), available: values,
                         writeStart: quiet, writeEnd: nil)
    }
    static let runawayLog = runawayLog()

    static let download4 = download("download of 4 GB at 50 MB/s, 20 GB free", total: 200 * gigabyte, free: 20 * gigabyte,
                                    size: 4 * gigabyte, rate: 50 * megabyte)
    static let download6 = download("download of 6 GB at 100 MB/s, 10 GB free", total: 100 * gigabyte, free: 10 * gigabyte,
                                    size: 6 * gigabyte, rate: 100 * megabyte)
    static let recording = download("screen recording at 5 MB/s for 20 min, 20 GB free", total: 200 * gigabyte, free: 20 * gigabyte,
                                     size: 6 * gigabyte, rate: 5 * megabyte)

    /// A build: 5–30 MB written in 60 % of the seconds for 3 minutes (about 3 GB), all of it
    /// removed a minute after it ends (`make clean`).
    static func build(seed: UInt64 = 22) -> FillTrace {
        var generator = SplitMix64(seed: seed)
        let free = 15 * gigabyte
        var written = 0.0
        var values: [UInt64] = []
        for second in 0..<(quiet + 180 + 60 + 1800) {
            if second >= quiet && second < quiet + 180 && generator.next() % 10 < 6 {
                written += (5 + Double(generator.next() % 2501) / 100) * megabyte
            }
            if second == quiet + 240 { written = 0 }
            values.append(UInt64(free - written))
        }
        return FillTrace(name: "build: 3 GB over 3 min, cleaned a minute later, 15 GB free", totalBytes: UInt64(100 * gigabyte),
                         available: values, writeStart: quiet, writeEnd: quiet + 180)
    }
    static let build = build()

    static let cronQuick = temporaryFile("cron temporary file: 2 GB in 10 s, kept 60 s, 10 GB free", total: 100 * gigabyte,
                                         free: 10 * gigabyte, size: 2 * gigabyte, writing: 10, kept: 60)
    static let cronSlow = temporaryFile("cron temporary file: 5 GB in 60 s, kept 60 s, 8 GB free", total: 100 * gigabyte,
                                        free: 8 * gigabyte, size: 5 * gigabyte, writing: 60, kept: 60)

    /// Space that comes and goes: an AR(1) process (every 3 s, φ 0.9) of standard deviation
    /// about `sigma` around `free`, for two hours.
    static func noise(sigma: Double, free: Double, seed: UInt64) -> FillTrace {
        var generator = SplitMix64(seed: seed)
        var level = 0.0
        var values: [UInt64] = []
        let innovation = sigma * (1 - 0.81).squareRoot()
        for second in 0..<7200 {
            if second % 3 == 0 { level = 0.9 * level + innovation * TrendScenario.normal(&generator) }
            values.append(UInt64(max(0, free + level)))
        }
        let name = "noise: σ \(Int(sigma / megabyte)) MB, \(ByteCountFormat.file(UInt64(free))) free"
        return FillTrace(name: name, totalBytes: UInt64(100 * gigabyte), available: values, writeStart: 0, writeEnd: nil)
    }
    static let noiseLarge = noise(sigma: 200 * megabyte, free: 5 * gigabyte, seed: 23)
    static let noiseSmall = noise(sigma: 50 * megabyte, free: 1 * gigabyte, seed: 24)

    static let filling: [FillTrace] = [steady50, steady10, steady200, steady1000, steady2, runawayLog]
    static let notFilling: [FillTrace] = [download4, download6, recording, build, cronQuick, cronSlow, noiseLarge, noiseSmall]
    static let all = filling + notFilling
}

/// One detector's alarms on one trace, sampled every `interval` seconds from `phase`.
struct FillScore: Sendable {
    /// Seconds from the start of the writing to the first alarm (fills only).
    var detection: Int?
    /// Alarms raised while the filesystem was not going to be full within the hour: how
    /// many times one started, and for how many seconds they lasted.
    var falseAlarms = 0
    var falseAlarmSeconds = 0
    /// From the end of the writing to the last alarm (events that stop).
    var silentAfter: Int?

    static let horizon = 3600

    /// Runs the fast detector and `predict_linear(avail[5m], 3600) < 0` over the same samples.
    static func run(_ trace: FillTrace, interval: Int, phase: Int) -> (ours: FillScore, predictLinear: FillScore) {
        var detector = FillDetector()
        var ours = Tally(trace), reference = Tally(trace)
        var window: [PredictLinear.Sample] = []
        var second = phase
        while second < trace.available.count {
            let available = trace.available[second]
            ours.add(detector.observe(seconds: Double(second), availableBytes: available) != nil, at: second, interval: interval)
            window.append(PredictLinear.Sample(secondsSinceEpoch: Int64(second), value: Double(available)))
            window.removeAll { $0.secondsSinceEpoch <= Int64(second) - 300 }
            var fires = false
            if window.count >= 2 {
                let (slope, intercept) = PredictLinear.linearRegression(window, interceptTime: Int64(second))
                fires = slope * 3600 + intercept < 0
            }
            reference.add(fires, at: second, interval: interval)
            second += interval
        }
        return (ours.score, reference.score)
    }

    struct Tally {
        let trace: FillTrace
        let nextFull: [Int?]
        var score = FillScore()
        var wasFalse = false
        var lastAlarm: Int?

        init(_ trace: FillTrace) {
            self.trace = trace
            nextFull = trace.nextFull
        }

        mutating func add(_ alarm: Bool, at second: Int, interval: Int) {
            let positive = nextFull[second].map { $0 - second <= FillScore.horizon } ?? false
            if alarm && second >= trace.writeStart && score.detection == nil && trace.fills { score.detection = second - trace.writeStart }
            if alarm && !positive {
                if !wasFalse { score.falseAlarms += 1 }
                score.falseAlarmSeconds += interval
            }
            wasFalse = alarm && !positive
            if alarm { lastAlarm = second }
            if let end = trace.writeEnd { score.silentAfter = lastAlarm.map { max(0, $0 - end) } ?? 0 }
        }
    }
}
