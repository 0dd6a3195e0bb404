import CLinux
import UsedSpaceCore

/// The time of day, for the timestamps snapshots carry.
public enum WallClock {
    public static func now() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Timestamp(secondsSinceEpoch: Int64(time.tv_sec))
    }
}
