/// One filesystem in `usedspace list`: its mount, its numbers (or why there are none),
/// and what the daemon knows of its trend.
public struct ListRow: Equatable, Sendable {
    public var mountPoint: String
    public var fileSystemType: String
    /// nil when the filesystem could not be measured: `problem` says why.
    public var stats: FilesystemStats?
    /// "not answering" (a hung mount given up on), or a system error.
    public var problem: String?
    /// From the daemon's snapshot of this filesystem, when it watches it.
    public var timeToFull: TimeToFull?
    public var severity: Severity
    /// The mount table does not show this path's mount (a bare chroot): `mountPoint` is the
    /// path measured, as df's "Mounted on" shows it then, and the type is `-`.
    public var mountUnknown = false

    public init(
        mountPoint: String, fileSystemType: String, stats: FilesystemStats?, problem: String? = nil,
        timeToFull: TimeToFull? = nil, severity: Severity = .normal
    ) {
        self.mountPoint = mountPoint
        self.fileSystemType = fileSystemType
        self.stats = stats
        self.problem = problem
        self.timeToFull = timeToFull
        self.severity = severity
    }

    /// df's IUse%: ⌈100 · used inodes / inodes⌉; nil without an inode table (btrfs).
    public var inodePercent: Int? {
        guard let stats, let used = stats.usedInodes, stats.totalInodes > 0 else { return nil }
        return Fraction(numerator: used, denominator: stats.totalInodes).ceilingOfScaled(by: 100).clampedToInt
    }

    /// The level a row is coloured by: a read-only filesystem cannot fill up, so it is
    /// never a warning (a squashfs is always "100 %"), as GNOME does not warn about it.
    public static func severity(of stats: FilesystemStats?, policy: SeverityPolicy) -> Severity {
        guard let stats, !stats.readOnly else { return .normal }
        return FilesystemLevel.ofLimits(stats, limits: policy, previous: nil)
    }
}

extension ListRow {
    /// `path` measured where the mount table does not show its mount.
    public static func ofUnknownMount(_ path: String) -> ListRow {
        var row = ListRow(mountPoint: path, fileSystemType: Snapshot.unknownMountText, stats: nil)
        row.mountUnknown = true
        return row
    }
}
