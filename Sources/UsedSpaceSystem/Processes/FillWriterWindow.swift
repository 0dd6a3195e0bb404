import CLinux
import UsedSpaceCore

/// One window of looks at who is filling some filesystems, as a one-shot makes it (`usedspace
/// status`, and the daemon's helper `usedspaced --name-writers`): a look now, then one every
/// half second, each judged against the first, until one of the user's processes is seen
/// writing to every filesystem or 1.5 s have passed. A writer that writes once a second
/// writes at least once in 1.5 s, so it is named where two looks half a second apart fell
/// between two of its writes; the filesystem's free space, taken at the same looks, says
/// whether anyone else wrote meanwhile (FillWriters).
public enum FillWriterWindow {
    public static let stepMicroseconds: UInt32 = 500_000
    public static let longestNanoseconds: UInt64 = 1_500_000_000
    public static let settleMicroseconds: UInt32 = 200_000

    /// A filesystem to look at: where it is mounted, its device (what the writers' open files
    /// are matched to), and whether it may hang (a network or FUSE filesystem: its free space
    /// is then asked in a child that can be left behind, IsolatedSample).
    public struct Target: Sendable {
        public var mountPoint: String
        public var device: (major: UInt32, minor: UInt32)
        public var mayHang: Bool

        public init(_ entry: MountEntry) {
            mountPoint = entry.mountPoint
            device = (entry.deviceMajor, entry.deviceMinor)
            mayHang = RealFilesystems.mayHang(entry.fileSystemType)
        }
    }

    /// What the window saw at each target, in order.
    public static func look(at targets: [Target], limit: Int = 3, home: String?) -> [FillWriters] {
        // The processes are read before the free space at the first look and after it at the
        // others: growth the window saw was then written within the processes' window too,
        // and a write that falls between the two reads is never taken for someone else's.
        let survey = FillWriterSurvey()
        let first = survey.look()
        let freeAtFirst = targets.map(freeBytes)
        var seen = targets.map { _ in FillWriters([], sawGrowth: false, home: home) }
        repeat {
            usleep(stepMicroseconds)
            let free = targets.indices.map { seen[$0].writers.isEmpty ? freeBytes(targets[$0]) : nil }
            let look = survey.look()
            for index in targets.indices where seen[index].writers.isEmpty {
                seen[index] = survey.writers(from: first, to: look, device: targets[index].device, freeBefore: freeAtFirst[index],
                                             freeAfter: free[index], limit: limit, home: home)
            }
            if look.nanoseconds - first.nanoseconds >= longestNanoseconds { break }
        } while seen.contains(where: { $0.writers.isEmpty })
        // A write still going on at the last look has grown the filesystem but is not yet in
        // its writer's counters (a write is counted when it returns): where the window saw
        // growth and no writer, the processes are looked at once more, a moment later.
        let doubtful = targets.indices.filter { seen[$0].writers.isEmpty && seen[$0].sawGrowth }
        guard !doubtful.isEmpty else { return seen }
        usleep(settleMicroseconds)
        let late = survey.look()
        for index in doubtful {
            let writers = survey.writers(from: first, to: late, device: targets[index].device, freeBefore: nil, freeAfter: nil,
                                         limit: limit, home: home).writers
            if !writers.isEmpty { seen[index] = FillWriters(writers, sawGrowth: true, home: home) }
        }
        return seen
    }

    /// df's Avail of the filesystem now; nil when it does not say (or not in time).
    static func freeBytes(_ target: Target) -> UInt64? {
        if target.mayHang { return IsolatedSample.snapshot(target.mountPoint, timeoutMilliseconds: 500).stats?.freeBytes }
        return try? Statvfs.of(target.mountPoint, readOnly: false).freeBytes
    }
}
