import CLinux
import UsedSpaceCore

/// Who started whom, from /proc: how `usedspace click` finds the `watch` of the bar that
/// runs it.
public enum ProcessTree {
    /// The parent of `pid`, or nil when it is gone.
    public static func parent(of pid: Int32) -> Int32? {
        guard let text = try? FileContents.readText("/proc/\(pid)/stat", limit: 4096) else { return nil }
        return ProcessStat.parentID(text)
    }

    /// `pid`, its parent, its parent's parent… up to pid 1.
    public static func lineage(of pid: Int32) -> [Int32] {
        var chain = [pid]
        var current = pid
        while current > 1, chain.count < 256, let parent = parent(of: current) {
            chain.append(parent)
            current = parent
        }
        return chain
    }

    /// Whether a process with this id exists.
    public static func exists(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || clinux_errno() == EPERM
    }
}
