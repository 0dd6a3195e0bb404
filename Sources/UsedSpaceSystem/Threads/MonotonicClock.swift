import CLinux

/// CLOCK_MONOTONIC, for intervals and deadlines: it never jumps when the time of day is set.
/// (sd-event's timers use the same clock, in microseconds.)
public enum MonotonicClock {
    public static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
