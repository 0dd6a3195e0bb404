/// When a filesystem will be full: a range of durations from the time of the estimate.
public struct TimeToFull: Equatable, Sendable, CustomStringConvertible {
    /// The soonest it may be full, in seconds from now.
    public var lowerSeconds: Int64
    /// The latest, in seconds from now; never less than `lowerSeconds`.
    public var upperSeconds: Int64
    /// The windows (their lengths in seconds) whose trend supports the estimate; empty when
    /// the filesystem is full already.
    public var windowSeconds: [Int64]

    /// Negative bounds become 0 and swapped bounds are put in order.
    public init(lowerSeconds: Int64, upperSeconds: Int64, windowSeconds: [Int64] = []) {
        let low = max(0, lowerSeconds), high = max(0, upperSeconds)
        self.lowerSeconds = min(low, high)
        self.upperSeconds = max(low, high)
        self.windowSeconds = windowSeconds
    }

    /// The same estimate `seconds` later: both bounds nearer by that much (never below 0).
    public func advanced(bySeconds seconds: Int64) -> TimeToFull {
        TimeToFull(lowerSeconds: lowerSeconds - seconds, upperSeconds: upperSeconds - seconds, windowSeconds: windowSeconds)
    }

    /// "full in 3–5 days": see `describe(lowerSeconds:upperSeconds:)`.
    public var description: String { Self.describe(lowerSeconds: lowerSeconds, upperSeconds: upperSeconds) }

    /// A range of durations for people, in the coarsest sensible unit:
    ///
    /// - the unit comes from the upper bound: minutes below 90 minutes, hours below 36 hours,
    ///   days below 14 days, weeks beyond;
    /// - both bounds are rounded to the nearest whole unit (halves up): "full in 3–5 days",
    ///   with an en dash; when both round to the same number, "full in about 2 weeks";
    /// - when the lower bound rounds to 0 in that unit, it takes its own unit:
    ///   "full in 20 minutes – 5 hours", or "full in less than 5 hours" below half a minute;
    /// - "full in less than a minute" when the upper bound is below half a minute, and
    ///   "full now" when it is 0.
    public static func describe(lowerSeconds: Int64, upperSeconds: Int64) -> String {
        let low = max(0, min(lowerSeconds, upperSeconds)), high = max(0, lowerSeconds, upperSeconds)
        if high == 0 { return "full now" }
        let unit = Unit(for: high)
        let highCount = unit.count(high)
        if highCount == 0 { return "full in less than a minute" }
        let lowCount = unit.count(low)
        if lowCount == highCount { return "full in about \(unit.name(highCount))" }
        if lowCount > 0 { return "full in \(lowCount)–\(unit.name(highCount))" }
        let lowUnit = Unit(for: low)
        let ownCount = lowUnit.count(low)
        if ownCount == 0 { return "full in less than \(unit.name(highCount))" }
        return "full in \(lowUnit.name(ownCount)) – \(unit.name(highCount))"
    }

    private enum Unit {
        case minute, hour, day, week

        init(for seconds: Int64) {
            switch seconds {
            case ..<5400: self = .minute
            case ..<(36 * 3600): self = .hour
            case ..<(14 * 86_400): self = .day
            default: self = .week
            }
        }

        var seconds: Int64 {
            switch self {
            case .minute: 60
            case .hour: 3600
            case .day: 86_400
            case .week: 7 * 86_400
            }
        }

        /// Whole units, to the nearest, halves up; without overflow.
        func count(_ value: Int64) -> Int64 {
            value / seconds + (value % seconds >= seconds / 2 ? 1 : 0)
        }

        func name(_ count: Int64) -> String {
            let word: String
            switch self {
            case .minute: word = "minute"
            case .hour: word = "hour"
            case .day: word = "day"
            case .week: word = "week"
            }
            return "\(count) \(word)\(count == 1 ? "" : "s")"
        }
    }
}
