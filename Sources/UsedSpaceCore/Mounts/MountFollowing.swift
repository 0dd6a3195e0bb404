/// The one rule of following the mount table, for the daemon (`path = auto`) and for
/// `watch --all` sampling without one: after each read of the table, which mount points
/// are watched (AutomaticWatches) and what starts and ends (MountDiff), leaving out the
/// mount points this user cannot reach. Such a mount point is found by its first sample
/// (permission denied), is not shown, ends, and stays left out until it is unmounted:
/// mounted again, it may be reachable.
///
/// Pure: the caller reads the table and samples; this decides.
public struct MountFollowing: Sendable {
    private var unreachable: Set<String> = []

    public init() {}

    /// The mount points to watch by `entries` (the explicit paths' filesystems are watched
    /// by those already), without the unreachable ones; those no longer mounted are
    /// forgotten.
    public mutating func wanted(in entries: [MountEntry], besides explicitPaths: [String]) -> [String] {
        let mountPoints = AutomaticWatches.mountPoints(in: entries, besides: explicitPaths)
        unreachable.formIntersection(mountPoints)
        return mountPoints.filter { !unreachable.contains($0) }
    }

    /// The table was read again: the mount points to watch now, and how they differ from
    /// `watched`, the ones watched until now.
    public mutating func changes(in entries: [MountEntry], besides explicitPaths: [String],
                                 from watched: [String]) -> (wanted: [String], diff: MountDiff) {
        let wanted = wanted(in: entries, besides: explicitPaths)
        return (wanted, MountDiff(from: watched, to: wanted))
    }

    /// Whether `snapshot` of `mountPoint`, one of the followed ones (`followed`), says that
    /// this user cannot reach it. Then it is not to be shown: its watch ends, and the mount
    /// point is left out from now on, until it is unmounted.
    public mutating func isUnreachable(_ snapshot: Snapshot, of mountPoint: String, followed: [String]) -> Bool {
        guard snapshot.state == .failed, followed.contains(mountPoint),
              snapshot.error == SampleError.permissionDenied(path: mountPoint).description else { return false }
        unreachable.insert(mountPoint)
        return true
    }
}
