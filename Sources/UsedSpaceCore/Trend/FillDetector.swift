/// Catches a fill in seconds: a runaway log or a download about to fill the filesystem,
/// which the time-to-full estimate (hours of history by design) sees too late. Fed every
/// sample of the sampling thread, publishes or not; pure. docs/fast-fill.md has the method
/// and its comparison with Prometheus's `predict_linear(avail[5m], 3600) < 0`.
///
/// ## The rule
///
/// The detector keeps the recent samples (time, available bytes), at most `windows.last`
/// seconds of them, thinned with age (a sample is kept when it is at least 1/32 of its age
/// away from the next one kept: full resolution for the last half minute, about 22 per
/// doubling of age beyond), so a 100 ms interval costs no more than a 5 s one. A fill is
/// flagged when some window W of the recent past (10 s to 10 min) shows, on its samples
/// (resampled to at most 25 points):
///
/// 1. **Enough data**: the samples reach back W seconds, with at least 6 in the window.
/// 2. **A trend**: the Theil–Sen slope β is negative and Kendall's τ-b is at most −0.8
///    (at least 90 % of the pairs have the later point lower).
/// 3. **Sustained**: each third of the window declines, at no less than β/3 — a burst that
///    covers part of the window (a cron job's temporary file written in seconds) does not
///    pass — and so do the last samples (the shortest window with 6 of them): a fill that
///    has stopped falls silent within a few samples.
/// 4. **Soon**: at β the filesystem is full within the hour, and within 8 × W: a fill that
///    has gone on for W seconds is believed to go on for a few times as long, not forever.
///    (A steady 50 MB/s with 10 GB free, full in 200 s, passes after 25 s.) A fill already
///    flagged stays flagged until its time to full exceeds these limits by a quarter.
/// 5. **More than the routine**: the decline −β·W is at least four times the 90th
///    percentile of the changes over W seconds seen in the kept past (every W/4), and at
///    least 1 MB: on a filesystem where that much space routinely comes back within W,
///    the decline is noise.
///
/// The verdict is the passing window with the soonest time to full, its rate rounded to
/// two significant digits, and for how long the fill has been seen (the longest passing
/// window). Nothing passes: nil.
public struct FillDetector: Sendable {
    struct Point: Equatable, Sendable {
        var time: Double
        var available: Double
    }

    /// The windows judged, in seconds, shortest first.
    public var windows: [Double] = [10, 15, 20, 25, 30, 45, 60, 90, 120, 180, 300, 450, 600]
    public var minimumSamples = 6
    public var maximumTau = -0.8
    public var minimumThirdShare = 1.0 / 3.0
    /// The time to full must be at most this multiple of the window.
    public var extrapolation = 8.0
    /// …and at most this many seconds.
    public var horizonSeconds = 3600.0
    public var routineMargin = 4.0
    public var minimumDeclineBytes = 1_000_000.0
    /// While a fill is flagged, the two limits of "soon" are this much wider.
    public var keepingSlack = 1.25
    /// The most points a window is judged on (its samples, or a grid when there are more).
    public var gridPoints = 25

    private(set) var points: [Point] = []
    private var lastVerdict: FastFill?

    /// The verdict on the last sample observed.
    public var verdict: FastFill? { lastVerdict }

    public init() {}

    /// Forgets the past (another filesystem appeared at the path).
    public mutating func reset() {
        points.removeAll()
        lastVerdict = nil
    }

    /// Adds a sample taken at `time` (seconds on a monotonic clock) and returns the verdict.
    /// A sample not later than the last one changes nothing.
    public mutating func observe(seconds time: Double, availableBytes: UInt64) -> FastFill? {
        if let last = points.last, !(time > last.time) { return lastVerdict }
        points.append(Point(time: time, available: Double(availableBytes)))
        prune(now: time)
        lastVerdict = evaluate(now: time)
        return lastVerdict
    }

    // MARK: - Keeping the past

    private mutating func prune(now: Double) {
        guard let longest = windows.last else { return }
        // Keep one sample at or before the longest window's start: it carries its value in.
        let start = now - longest
        var first = 0
        while first + 1 < points.count, points[first + 1].time <= start { first += 1 }
        if first > 0 { points.removeFirst(first) }
        if points.count > 192 { thin(now: now) }
    }

    /// Keeps, from the newest back, each sample at least 1/32 of its age away from the last
    /// one kept; the oldest (which carries the value into the longest window) always stays.
    private mutating func thin(now: Double) {
        var kept: [Point] = [points[points.count - 1]]
        kept.reserveCapacity(points.count)
        for index in stride(from: points.count - 2, to: 0, by: -1) {
            let point = points[index]
            if kept[kept.count - 1].time - point.time >= (now - point.time) / 32 { kept.append(point) }
        }
        if points.count > 1 { kept.append(points[0]) }
        points = kept.reversed()
    }

    /// The available bytes at `time`: the last sample at or before it, or nil before the first.
    private func value(at time: Double) -> Double? {
        var low = 0, high = points.count
        while low < high {
            let middle = (low + high) / 2
            if points[middle].time <= time { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? points[low - 1].available : nil
    }

    // MARK: - Judging

    private struct Judged {
        var window: Double
        var slope: Double
        var secondsToFull: Double
    }

    private func evaluate(now: Double) -> FastFill? {
        guard let available = points.last?.available, available > 0, let shortest = windows.first,
              let before = value(at: now - shortest), available < before
        else { return nil }
        var recentSlope: Double?
        var passed: [Judged] = []
        for window in windows {
            guard let series = series(window: window, now: now) else { continue }
            if let recentSlope, !mayPass(window: window, series: series, recentSlope: recentSlope, available: available) { continue }
            guard let fit = RobustTrend.fit(times: series.times, values: series.values) else { continue }
            if recentSlope == nil {
                recentSlope = fit.slope
                guard fit.slope < 0 else { return nil }
            }
            guard let judged = judge(window: window, series: series, fit: fit, recentSlope: recentSlope!, available: available, now: now)
            else { continue }
            passed.append(judged)
        }
        guard let soonest = passed.min(by: { $0.secondsToFull < $1.secondsToFull }), let longest = passed.last else { return nil }
        return FastFill(bytesPerSecond: FastFill.twoSignificantDigits(-soonest.slope),
                        secondsToFull: Int64(soonest.secondsToFull.rounded(.down)), sustainedSeconds: Int64(longest.window))
    }

    /// The window's points, oldest first, in seconds relative to now: the value carried in
    /// at its start, then its samples (or a grid of `gridPoints` when there are more);
    /// nil when the samples do not reach back to its start or are too few.
    private func series(window: Double, now: Double) -> (times: [Double], values: [Double])? {
        let start = now - window
        guard let first = points.first, first.time <= start else { return nil }
        var index = points.count
        while index > 0, points[index - 1].time > start { index -= 1 }
        let inside = points.count - index
        guard inside + 1 >= minimumSamples else { return nil }
        var times: [Double] = [], values: [Double] = []
        times.reserveCapacity(min(inside + 1, gridPoints))
        values.reserveCapacity(min(inside + 1, gridPoints))
        if inside + 1 <= gridPoints {
            times.append(-window)
            values.append(points[index - 1].available)
            for point in points[index...] {
                times.append(point.time - now)
                values.append(point.available)
            }
        } else {
            for step in 0..<gridPoints {
                let offset = window * Double(gridPoints - 1 - step) / Double(gridPoints - 1)
                guard let carried = value(at: now - offset) else { return nil }
                times.append(-offset)
                values.append(carried)
            }
        }
        return (times, values)
    }

    private func judge(window: Double, series: (times: [Double], values: [Double]), fit: RobustTrend, recentSlope: Double,
                       available: Double, now: Double) -> Judged? {
        let slope = fit.slope
        guard slope < 0, fit.tau <= maximumTau, recentSlope <= slope * minimumThirdShare else { return nil }
        let decline = -slope * window
        let secondsToFull = available / -slope
        // A fill already flagged keeps its flag until its time to full is clearly beyond
        // the limits, so that one near them does not flap.
        let slack = lastVerdict == nil ? 1 : keepingSlack
        guard decline >= minimumDeclineBytes, secondsToFull <= horizonSeconds * slack, secondsToFull <= extrapolation * window * slack
        else { return nil }
        let last = series.times.count - 1
        let bounds = [0, last / 3, 2 * last / 3, last]
        for third in 0..<3 {
            let range = bounds[third]...bounds[third + 1]
            guard let part = RobustTrend.fit(times: Array(series.times[range]), values: Array(series.values[range])),
                  part.slope < 0, part.slope <= slope * minimumThirdShare
            else { return nil }
        }
        if let routine = routineRise(window: window, now: now), routine > 0, decline < routineMargin * routine { return nil }
        return Judged(window: window, slope: slope, secondsToFull: secondsToFull)
    }

    /// Whether the window's fit could pass `judge`'s tests of its slope at all ("soon", the
    /// decline, no steeper than the recent slope allows), without fitting it: the Theil–Sen
    /// slope is a median of pairwise slopes, each a weighted mean of the slopes between
    /// neighbouring points, so it is no steeper than the steepest of those. On a disk in use
    /// most windows cannot pass, and their fits were most of a sample's cost; skipping them
    /// changes no verdict (the margin covers rounding).
    private func mayPass(window: Double, series: (times: [Double], values: [Double]), recentSlope: Double, available: Double) -> Bool {
        var steepest = 0.0
        for index in series.times.indices.dropFirst() {
            let slope = (series.values[index] - series.values[index - 1]) / (series.times[index] - series.times[index - 1])
            if slope < steepest { steepest = slope }
        }
        let margin = 1.01
        var fastest = -steepest * margin
        if minimumThirdShare > 0 { fastest = min(fastest, -recentSlope / minimumThirdShare * margin) }
        guard fastest > 0 else { return false }
        let slack = lastVerdict == nil ? 1 : keepingSlack
        let needed = max(minimumDeclineBytes / window, available / (min(horizonSeconds, extrapolation * window) * slack))
        return !(fastest < needed)
    }

    /// The 90th percentile of the changes of available space over `window` seconds, every
    /// quarter window back through the kept past (the largest, with fewer than 8); nil when
    /// the past is shorter than the window.
    private func routineRise(window: Double, now: Double) -> Double? {
        guard let first = points.first?.time else { return nil }
        var changes: [Double] = []
        var time = now
        while time - window >= first {
            if let end = value(at: time), let start = value(at: time - window) { changes.append(end - start) }
            time -= window / 4
        }
        guard !changes.isEmpty else { return nil }
        guard changes.count >= 8 else { return changes.max() }
        return RobustTrend.select(&changes, changes.count * 9 / 10)
    }
}
