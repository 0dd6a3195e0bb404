/// Estimates when a filesystem will be full from its `UsageHistory`, as a range, and says
/// nothing unless the free space has been going down steadily. Each window (2 h, 6 h, 24 h,
/// 7 days) is resampled on a grid and judged on its own: enough data, a negative Theil–Sen
/// slope, Kendall's τ-b ≤ −0.6, the slope sustained in each third, a decline large enough
/// and more than the filesystem's routine ups and downs, a time to full that is not absurd.
/// The range runs from the fastest to the slowest rate of the windows that pass; none: nil.
/// Full now: 0–0. docs/time-to-full.md has the rule step by step, and why.
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
