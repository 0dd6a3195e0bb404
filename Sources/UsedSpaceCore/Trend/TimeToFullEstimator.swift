/// Estimates when a filesystem will be full from its `UsageHistory`, as a range, and says
/// nothing unless the free space has been going down steadily. docs/time-to-full.md has the
/// reasoning and the comparison with Prometheus's `predict_linear`.
///
/// ## The rule
///
/// Each window (by default the last 2 h, 6 h, 24 h and 7 days) is judged on its own:
///
/// 1. **Resampling.** The history is read as a step function (each point holds until the
///    next; the daemon records every change of 0.01 % or more, so this is exact to that) and
///    sampled on a regular grid ending at `now`: every 2 minutes over 2 h, 5 minutes over
///    6 h, 15 minutes over 24 h, an hour over 7 days (61, 73, 97 and 169 grid points). The
///    grid gives every stretch of time the same weight whatever the number of points
///    recorded in it — a burst of writes records hundreds of points in a few minutes — and
///    bounds the cost: at most 169·168/2 = 14 196 pairs for the longest window.
/// 2. **Enough data.** The history must cover at least a third of the window (grid points
///    before the first point are left out) with at least 6 points (counting the one that
///    carries its value into the window).
/// 3. **Trend.** The Theil–Sen slope β (the median of the slopes between every pair of grid
///    points) must be negative: free space going down.
/// 4. **Significance.** Kendall's τ-b between time and free space must be ≤ −0.6: for a
///    series without ties, at least 80 % of the pairs of grid points have the later one lower.
///    Noise around a plateau scores near 0.
/// 5. **Sustained.** Split the covered grid into three consecutive thirds; the Theil–Sen slope
///    of each third must be negative and at least a third of β (β_k ≤ β/3). A trend that
///    keeps going satisfies this in every third; a single step does not (a one-off burst, or
///    the write half of a cron job's temporary file: the step falls in one third, the other
///    two are flat), nor does growth that has stopped (the last third is flat). The shortest
///    window is 2 h rather than 1 h for this step: a temporary file written and deleted
///    within the hour, even written slowly over the whole hour, cannot reach into all three
///    40-minute thirds, where it could into three 20-minute ones.
/// 6. **Large enough.** The decline the trend implies over the covered span, −β·span, must
///    be at least 0.05 % of the filesystem (5 publish thresholds), so that a couple of
///    rounding steps are not a trend.
/// 7. **Not absurd.** The time to zero at that rate, available/−β, must be under a year and
///    under 50 times the window (two hours of trend say nothing about the next month).
/// 8. **More than the filesystem's routine.** Over a baseline of the last max(1 day, 4
///    windows), take the change of available space over one window length, every quarter
///    window (Δ_j = avail(t_j) − avail(t_j − W)); the decline −β·span must be at least four
///    times the 90th percentile of those changes. Space that routinely comes back by that
///    much within a window's length (temporary files, caches, builds) makes a decline of
///    that size noise, however straight it looked for two hours; a filesystem that only
///    ever fills has a negative 90th percentile and passes at once. The baseline needs at
///    least 8 changes (2.75 windows of history): the 2 h and 6 h windows do not count
///    before that; the 24 h window is judged without this step until it has 2.75 days of
///    history, the 7-day window always (19 days would exceed the retention).
///
/// A window that passes gives a range of rates: the steepest and the shallowest of β and the
/// three third slopes β_k — how fast the space went in the window's fastest and slowest
/// stretches. The range of times is what is available now divided by those rates (lower
/// bound rounded down, upper rounded up, to the second).
///
/// The result combines every window that passed: from the smallest of their lower bounds to
/// the largest of their upper bounds. No window passed: nil. Several windows because growth
/// comes at different time scales: a runaway log shows within two hours, a nightly backup's
/// staircase only over a day, a slow fill over the week; and a short window reacts to a
/// change of pace that a long one averages away.
///
/// When the latest point has nothing available, the filesystem is full now: the estimate is
/// 0–0 whatever the trend.
///
/// Cost: about 0.2 ms for a full history (2 048 points) in a release build, independent of
/// the number of points beyond the binary searches, so it can run at every publish.
public struct TimeToFullEstimator: Equatable, Sendable {
    public struct Window: Equatable, Hashable, Sendable {
        public var seconds: Int64
        /// The grid spacing the window is sampled at.
        public var stepSeconds: Int64

        public init(seconds: Int64, stepSeconds: Int64) {
            self.seconds = max(1, seconds)
            self.stepSeconds = min(max(1, stepSeconds), self.seconds)
        }

        public static let twoHours = Window(seconds: 2 * 3600, stepSeconds: 120)
        public static let sixHours = Window(seconds: 6 * 3600, stepSeconds: 300)
        public static let oneDay = Window(seconds: 86_400, stepSeconds: 900)
        public static let oneWeek = Window(seconds: 7 * 86_400, stepSeconds: 3600)
    }

    public static let defaultWindows: [Window] = [.twoHours, .sixHours, .oneDay, .oneWeek]

    public var windows: [Window]
    /// Least fraction of a window the history must cover.
    public var minimumCoverage: Double
    /// Least number of history points in a window (with the one carried into it).
    public var minimumPoints: Int
    /// Kendall's τ-b must be at most this.
    public var maximumTau: Double
    /// Each third's slope must be at least this share of the window's slope.
    public var minimumThirdShare: Double
    /// Least decline over the covered span, as a fraction of the filesystem's size.
    public var minimumDeclineFraction: Double
    /// Longest time to full a window may predict, as a multiple of its length.
    public var maximumExtrapolation: Double
    /// Longest time to full any window may predict.
    public var maximumSeconds: Int64
    /// Least length of the baseline for the routine-change test (step 8).
    public var baselineSeconds: Int64
    /// The decline must be at least this multiple of the routine rise (step 8).
    public var routineMargin: Double

    public init(
        windows: [Window] = TimeToFullEstimator.defaultWindows,
        minimumCoverage: Double = 1.0 / 3.0,
        minimumPoints: Int = 6,
        maximumTau: Double = -0.6,
        minimumThirdShare: Double = 1.0 / 3.0,
        minimumDeclineFraction: Double = 0.0005,
        maximumExtrapolation: Double = 50,
        maximumSeconds: Int64 = 365 * 86_400,
        baselineSeconds: Int64 = 86_400,
        routineMargin: Double = 4
    ) {
        self.windows = windows
        self.minimumCoverage = minimumCoverage
        self.minimumPoints = minimumPoints
        self.maximumTau = maximumTau
        self.minimumThirdShare = minimumThirdShare
        self.minimumDeclineFraction = minimumDeclineFraction
        self.maximumExtrapolation = maximumExtrapolation
        self.maximumSeconds = maximumSeconds
        self.baselineSeconds = baselineSeconds
        self.routineMargin = routineMargin
    }

    /// When the filesystem will be full, counted from `now`, or nil when no window shows a
    /// significant, sustained decline of the available space (see the type's documentation).
    /// `totalBytes` is the filesystem's size (df's Size), for the least decline that counts.
    /// Points after `now` are ignored.
    public func estimate(_ history: UsageHistory, now: Int64, totalBytes: UInt64) -> TimeToFull? {
        guard totalBytes > 0, let current = Self.currentPoint(history, now: now) else { return nil }
        if current.availableBytes == 0 {
            return TimeToFull(lowerSeconds: 0, upperSeconds: 0, windowSeconds: [])
        }
        var lower: Int64?, upper: Int64?
        var supporting: [Int64] = []
        for trend in analyze(history, now: now, totalBytes: totalBytes) where trend.verdict == .significant {
            guard let low = trend.lowerSeconds, let high = trend.upperSeconds else { continue }
            lower = min(lower ?? low, low)
            upper = max(upper ?? high, high)
            supporting.append(trend.windowSeconds)
        }
        guard let lower, let upper else { return nil }
        return TimeToFull(lowerSeconds: lower, upperSeconds: upper, windowSeconds: supporting)
    }

    /// The verdict of every window, in the order of `windows`: what `estimate` combines.
    public func analyze(_ history: UsageHistory, now: Int64, totalBytes: UInt64) -> [WindowTrend] {
        windows.map { analyze(history, window: $0, now: now, totalBytes: totalBytes) }
    }

    static func currentPoint(_ history: UsageHistory, now: Int64) -> UsageHistory.Point? {
        let end = endIndex(history.points, now: now)
        return end > 0 ? history.points[end - 1] : nil
    }

    /// The index after the last point at or before `now`.
    private static func endIndex(_ points: [UsageHistory.Point], now: Int64) -> Int {
        now == .max ? points.count : UsageHistory.firstIndex(in: points, notBefore: now + 1)
    }

    func analyze(_ history: UsageHistory, window: Window, now: Int64, totalBytes: UInt64) -> WindowTrend {
        var trend = WindowTrend(windowSeconds: window.seconds)
        let points = history.points
        let end = Self.endIndex(points, now: now)
        let (windowStart, overflow) = now.subtractingReportingOverflow(window.seconds)
        guard !overflow, end > 0, totalBytes > 0 else { return trend }
        let start = UsageHistory.firstIndex(in: points, notBefore: windowStart)
        let coverageStart = start > 0 ? windowStart : points[0].secondsSinceEpoch
        trend.coveredSeconds = now - coverageStart
        trend.points = end - start + (start > 0 ? 1 : 0)
        guard Double(trend.coveredSeconds) >= Double(window.seconds) * minimumCoverage,
              trend.points >= max(2, minimumPoints)
        else { return trend }

        // 1. The grid, oldest first, in seconds relative to now; each value carried forward
        // from the last point at or before its time.
        let gridCount = Int(window.seconds / window.stepSeconds) + 1
        var times: [Double] = [], values: [Double] = []
        times.reserveCapacity(gridCount)
        values.reserveCapacity(gridCount)
        var next = max(0, start - 1)
        for index in 0..<gridCount {
            let offset = Int64(gridCount - 1 - index) * window.stepSeconds
            let time = now - offset
            guard time >= coverageStart else { continue }
            while next + 1 < end, points[next + 1].secondsSinceEpoch <= time { next += 1 }
            times.append(-Double(offset))
            values.append(Double(points[next].availableBytes))
        }
        guard times.count >= max(4, minimumPoints), let fit = RobustTrend.fit(times: times, values: values) else { return trend }
        trend.slope = fit.slope
        trend.tau = fit.tau
        let last = times.count - 1
        let bounds = [0, last / 3, 2 * last / 3, last]
        trend.thirdSlopes = (0..<3).map { third in
            let range = bounds[third]...bounds[third + 1]
            return RobustTrend.fit(times: Array(times[range]), values: Array(values[range]))?.slope ?? 0
        }
        let available = Double(points[end - 1].availableBytes)

        // 2.–7. The verdict.
        guard fit.slope < 0 else { trend.verdict = .notDeclining; return trend }
        guard fit.tau <= maximumTau else { trend.verdict = .notSignificant; return trend }
        guard trend.thirdSlopes.allSatisfy({ $0 < 0 && $0 <= fit.slope * minimumThirdShare }) else {
            trend.verdict = .notSustained
            return trend
        }
        guard -fit.slope * Double(trend.coveredSeconds) >= minimumDeclineFraction * Double(totalBytes) else {
            trend.verdict = .tooSmall
            return trend
        }
        let horizon = min(Double(maximumSeconds), maximumExtrapolation * Double(window.seconds))
        guard available / -fit.slope <= horizon else { trend.verdict = .tooFar; return trend }
        let routine = Self.routineRise(points, end: end, now: now, window: window.seconds,
                                       baseline: max(baselineSeconds, 4 * window.seconds))
        trend.routineRise = routine
        if let routine {
            guard -fit.slope * Double(trend.coveredSeconds) >= routineMargin * routine else {
                trend.verdict = .withinRoutine
                return trend
            }
        } else if window.seconds < baselineSeconds {
            trend.verdict = .tooLittleData
            return trend
        }
        let rates = [fit.slope] + trend.thirdSlopes
        trend.lowerSeconds = Self.seconds(available / -rates.min()!, roundingUp: false)
        trend.upperSeconds = Self.seconds(available / -rates.max()!, roundingUp: true)
        trend.verdict = .significant
        return trend
    }

    /// The 90th percentile of the changes of available bytes over `window` seconds, sampled
    /// every quarter window over the last `baseline` seconds (step 8); nil with fewer than 8.
    static func routineRise(_ points: [UsageHistory.Point], end: Int, now: Int64, window: Int64, baseline: Int64) -> Double? {
        guard end > 0 else { return nil }
        let stride = max(1, window / 4)
        let (start, overflow) = now.subtractingReportingOverflow(baseline)
        let earliest = max(overflow ? Int64.min : start, points[0].secondsSinceEpoch)
        var changes: [Double] = []
        var time = now
        while true {
            let (before, overflow) = time.subtractingReportingOverflow(window)
            guard !overflow, before >= earliest else { break }
            changes.append(value(points, end: end, at: time) - value(points, end: end, at: before))
            let (next, overflowNext) = time.subtractingReportingOverflow(stride)
            guard !overflowNext else { break }
            time = next
        }
        guard changes.count >= 8 else { return nil }
        return RobustTrend.select(&changes, changes.count * 9 / 10)
    }

    /// The available bytes at `time`: the last point at or before it (there must be one).
    private static func value(_ points: [UsageHistory.Point], end: Int, at time: Int64) -> Double {
        let index = time == .max ? end : min(end, UsageHistory.firstIndex(in: points, notBefore: time + 1))
        return Double(points[max(0, index - 1)].availableBytes)
    }

    /// A duration in whole seconds, at most about 31 million years.
    private static func seconds(_ value: Double, roundingUp: Bool) -> Int64 {
        let limit = 1e15
        guard value.isFinite, value < limit else { return Int64(limit) }
        return Int64(max(0, roundingUp ? value.rounded(.up) : value.rounded(.down)))
    }
}

/// How one window of the history was judged.
public struct WindowTrend: Equatable, Sendable {
    public enum Verdict: String, Equatable, Sendable {
        case significant
        /// Not enough of the window covered, or too few points.
        case tooLittleData = "too-little-data"
        /// The Theil–Sen slope is zero or positive.
        case notDeclining = "not-declining"
        /// Kendall's τ-b is above the limit.
        case notSignificant = "not-significant"
        /// One of the thirds of the window declined too little: a step, not a trend.
        case notSustained = "not-sustained"
        /// The decline over the window is below the least that counts.
        case tooSmall = "too-small"
        /// The time to full is beyond the horizon.
        case tooFar = "too-far"
        /// The decline is no more than the space that routinely comes back over a window.
        case withinRoutine = "within-routine"
    }

    public var windowSeconds: Int64
    public var coveredSeconds: Int64 = 0
    /// History points in the window, with the one carried into it.
    public var points: Int = 0
    /// Theil–Sen slope of the available bytes, per second (negative: filling up).
    public var slope: Double?
    /// Kendall's τ-b of time and available bytes.
    public var tau: Double?
    /// Theil–Sen slopes of the three consecutive thirds of the covered grid, oldest first.
    public var thirdSlopes: [Double] = []
    /// The 90th percentile of the changes over a window's length in the baseline (step 8),
    /// when there was enough history for it.
    public var routineRise: Double?
    public var verdict: Verdict = .tooLittleData
    /// With a significant verdict, the range of times to full from now.
    public var lowerSeconds: Int64?
    public var upperSeconds: Int64?

    public init(windowSeconds: Int64) {
        self.windowSeconds = windowSeconds
    }
}
