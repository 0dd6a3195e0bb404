@testable import UsedSpaceCore
/// Prometheus's `predict_linear(v[range], t)`, reproduced exactly as the reference the
/// time-to-full estimate is compared with — the usual disk alert is
/// `predict_linear(node_filesystem_avail_bytes[6h], 24 * 3600) < 0`.
///
/// From prometheus/promql/functions.go, `funcPredictLinear` and `linearRegression`: an
/// ordinary least-squares line through the samples of the range, with x the sample time in
/// seconds *relative to the evaluation time* (so the intercept is the fitted value now), sums
/// accumulated with Kahan–Neumaier compensation (`kahansum.Inc`):
///
///     x_i = (T_i − T_eval) / 1000            (T in milliseconds: here seconds, exactly)
///     cov = Σxy − Σx·Σy/n,  var = Σx² − (Σx)²/n
///     slope = cov / var,    intercept = Σy/n − slope·Σx/n
///     predict_linear = slope·t + intercept
///
/// with two special cases: fewer than two samples give no result, and a constant series gives
/// slope 0 and its value (NaN for an infinite constant). The range `v[6h]` at time T holds the
/// samples with T − 6h < time ≤ T (left-open, as in Prometheus 3; earlier versions included
/// the left end too, which only matters for a sample exactly 6 h old).
enum PredictLinear {
    public struct Sample: Equatable, Sendable {
        public var secondsSinceEpoch: Int64
        public var value: Double

        public init(secondsSinceEpoch: Int64, value: Double) {
            self.secondsSinceEpoch = secondsSinceEpoch
            self.value = value
        }
    }

    public static let defaultRangeSeconds: Int64 = 6 * 3600
    public static let defaultHorizonSeconds: Double = 24 * 3600

    /// Prometheus `linearRegression(samples, interceptTime)`.
    static func linearRegression(_ samples: [Sample], interceptTime: Int64) -> (slope: Double, intercept: Double) {
        var n = 0.0
        var sumX = 0.0, cX = 0.0, sumY = 0.0, cY = 0.0, sumXY = 0.0, cXY = 0.0, sumX2 = 0.0, cX2 = 0.0
        let initY = samples.first?.value ?? 0
        var constY = true
        for (index, sample) in samples.enumerated() {
            if constY, index > 0, sample.value != initY { constY = false }
            n += 1
            let (difference, overflow) = sample.secondsSinceEpoch.subtractingReportingOverflow(interceptTime)
            let x = overflow ? Double(sample.secondsSinceEpoch) - Double(interceptTime) : Double(difference)
            (sumX, cX) = kahanIncrement(x, sumX, cX)
            (sumY, cY) = kahanIncrement(sample.value, sumY, cY)
            (sumXY, cXY) = kahanIncrement(x * sample.value, sumXY, cXY)
            (sumX2, cX2) = kahanIncrement(x * x, sumX2, cX2)
        }
        if constY {
            return initY.isInfinite ? (.nan, .nan) : (0, initY)
        }
        sumX += cX
        sumY += cY
        sumXY += cXY
        sumX2 += cX2
        let covXY = sumXY - sumX * sumY / n
        let varX = sumX2 - sumX * sumX / n
        let slope = covXY / varX
        return (slope, sumY / n - slope * sumX / n)
    }

    /// Prometheus `kahansum.Inc`: Kahan summation with Neumaier's improvement.
    static func kahanIncrement(_ increment: Double, _ sum: Double, _ compensation: Double) -> (Double, Double) {
        let total = sum + increment
        var c = compensation
        if total.isInfinite {
            c = 0
        } else if abs(sum) >= abs(increment) {
            c += (sum - total) + increment
        } else {
            c += (increment - total) + sum
        }
        return (total, c)
    }

    /// `predict_linear(v[range], horizon)` evaluated at `evaluationTime`, over the samples
    /// with `evaluationTime − range < time ≤ evaluationTime` (any order of input is fine as
    /// long as it is sorted by time); nil with fewer than two.
    static func predict(
        _ samples: [Sample], at evaluationTime: Int64,
        rangeSeconds: Int64 = defaultRangeSeconds, horizonSeconds: Double = defaultHorizonSeconds
    ) -> Double? {
        let (start, overflow) = evaluationTime.subtractingReportingOverflow(rangeSeconds)
        let selected = samples.filter {
            (overflow || $0.secondsSinceEpoch > start) && $0.secondsSinceEpoch <= evaluationTime
        }
        guard selected.count >= 2 else { return nil }
        let (slope, intercept) = linearRegression(selected, interceptTime: evaluationTime)
        return slope * horizonSeconds + intercept
    }

    /// `predict_linear(avail[range], horizon)` over the points of a usage history.
    static func predict(
        _ history: UsageHistory, at evaluationTime: Int64,
        rangeSeconds: Int64 = defaultRangeSeconds, horizonSeconds: Double = defaultHorizonSeconds
    ) -> Double? {
        let (start, overflow) = evaluationTime.subtractingReportingOverflow(rangeSeconds)
        let from = overflow ? 0 : UsageHistory.firstIndex(in: history.points, notBefore: start == .max ? start : start + 1)
        var samples: [Sample] = []
        for point in history.points[from...] where point.secondsSinceEpoch <= evaluationTime {
            samples.append(Sample(secondsSinceEpoch: point.secondsSinceEpoch, value: Double(point.availableBytes)))
        }
        guard samples.count >= 2 else { return nil }
        let (slope, intercept) = linearRegression(samples, interceptTime: evaluationTime)
        return slope * horizonSeconds + intercept
    }

    /// The usual alert: `predict_linear(avail[6h], 24h) < 0`.
    static func alertFires(_ history: UsageHistory, at evaluationTime: Int64) -> Bool {
        guard let predicted = predict(history, at: evaluationTime) else { return false }
        return predicted < 0
    }
}
