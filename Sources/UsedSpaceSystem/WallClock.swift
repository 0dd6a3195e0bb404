import Glibc
import UsedSpaceCore

/// The clocks this program reads.
public enum WallClock {
    public static func now() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Timestamp(secondsSinceEpoch: Int64(time.tv_sec))
    }

    /// Monotonic nanoseconds, for measuring intervals and deadlines.
    public static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
