/// A fill caught in the act (FillDetector): space going fast enough, for long enough, to
/// fill the filesystem soon — "filling at 120 MB/s — full in about 6 minutes".
public struct FastFill: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// How fast the available space is going, rounded to two significant digits (what is
    /// shown, so that a new snapshot is published only when the text changes).
    public var bytesPerSecond: UInt64
    /// When the filesystem is full at that rate, in seconds from the sample.
    public var secondsToFull: Int64
    /// For how long the fill has been seen (the longest window it was sustained over).
    public var sustainedSeconds: Int64

    public init(bytesPerSecond: UInt64, secondsToFull: Int64, sustainedSeconds: Int64) {
        self.bytesPerSecond = bytesPerSecond
        self.secondsToFull = max(0, secondsToFull)
        self.sustainedSeconds = max(0, sustainedSeconds)
    }

    /// "filling at 120 MB/s — full in about 6 minutes".
    public var description: String {
        "filling at \(ByteCountFormat.file(bytesPerSecond))/s \u{2014} \(TimeToFull.describe(lowerSeconds: secondsToFull, upperSeconds: secondsToFull))"
    }

    /// The same as a time-to-full estimate, for where one is expected (JSON `time_to_full`,
    /// the Prometheus gauge) when the slow estimate has nothing to say.
    public var timeToFull: TimeToFull {
        TimeToFull(lowerSeconds: secondsToFull, upperSeconds: secondsToFull, windowSeconds: [sustainedSeconds])
    }

    /// `value` rounded to two significant digits, half up: 123 456 789 → 120 000 000.
    public static func twoSignificantDigits(_ value: Double) -> UInt64 {
        guard value.isFinite, value >= 1 else { return value.isFinite && value > 0 ? 1 : 0 }
        guard value < 9e18 else { return 9_000_000_000_000_000_000 }
        var scale: UInt64 = 1
        var scaled = value
        while scaled >= 100 {
            scaled /= 10
            scale *= 10
        }
        return UInt64(scaled.rounded(.toNearestOrAwayFromZero)) * scale
    }
}
