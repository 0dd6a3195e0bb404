/// What clients are shown: the numbers of one filesystem at one moment, how far to trust
/// them, and where they came from. Renderers are pure functions of a snapshot.
public struct Snapshot: Equatable, Sendable {
    public var path: String
    public var mountPoint: String?
    public var fileSystemType: String?
    /// nil for a failed snapshot: the reason is in `error`.
    public var stats: FilesystemStats?
    public var state: SnapshotState
    /// Increments with every snapshot a publisher publishes (and across daemon restarts).
    public var seq: UInt64
    /// When `stats` were sampled; for a failed snapshot, when the failure was seen.
    public var sampledAt: Timestamp
    public var source: SnapshotSource
    /// Why the snapshot is failed, or why it is stale (nil when stale only because it was
    /// loaded from disk and not yet re-sampled).
    public var error: String?
    /// When the filesystem will be full at its trend, as of `sampledAt`; nil without a
    /// significant trend (docs/time-to-full.md).
    public var timeToFull: TimeToFull?
    /// A fill caught in the last seconds to minutes (FillDetector), as of `sampledAt`; nil
    /// when nothing is filling the filesystem fast. Only a fresh snapshot has one.
    public var fastFill: FastFill?
    /// Who is filling it, while a fast fill is seen (FillWriters): named by the daemon, which
    /// asks its writers helper (its sandbox cannot read the user's processes) and sends them
    /// with the snapshot, or else by the client that shows it. nil: nobody looked. Never
    /// persisted.
    public var fillWriters: FillWriters?
    /// The level the daemon decided at its publish (FilesystemLevel.decide), which every view
    /// shows. nil in a client's own sample, or from a daemon or state file older than it: a
    /// view then decides it as a first publish would.
    public var level: Severity?
    /// How the btrfs filesystem has allocated its devices; nil on other filesystems.
    public var btrfs: BtrfsAllocation?
    /// A quota that leaves less room than the filesystem (Measurement.quota).
    public var quota: Quota?
    /// Why the daemon that served this snapshot is not running the configuration file as
    /// written (FILE:LINE: message, and what runs instead): a mistake the user must see.
    /// Not part of the filesystem's state: never persisted.
    public var configurationProblem: String?
    /// Failed because nothing is mounted where a filesystem was (an unplugged disk), or the
    /// path is gone: what `template-not-mounted` shows.
    public var notMounted = false
    /// The daemon stopped watching this filesystem (`path = auto` saw it unmounted): the last
    /// snapshot of its path, after which no update comes for it.
    public var watchEnded = false

    public init(
        path: String, mountPoint: String?, fileSystemType: String?, stats: FilesystemStats?,
        state: SnapshotState, seq: UInt64, sampledAt: Timestamp, source: SnapshotSource, error: String? = nil,
        timeToFull: TimeToFull? = nil
    ) {
        self.path = path
        self.mountPoint = mountPoint
        self.fileSystemType = fileSystemType
        self.stats = stats
        self.state = state
        self.seq = seq
        self.sampledAt = sampledAt
        self.source = source
        self.error = error
        self.timeToFull = timeToFull
    }

    /// Numbers without a mount: the mount table does not show the path's mount (a bare
    /// chroot, a table that cannot be read), and statvfs answered. Its mount point and type
    /// are unknown: `-` in text, as df prints them, null in JSON, empty on D-Bus.
    public var mountUnknown: Bool { stats != nil && mountPoint == nil }

    /// How text shows an unknown mount point or type: df's.
    public static let unknownMountText = "-"

    /// A fresh snapshot of a measurement.
    public init(_ measurement: Measurement, seq: UInt64, source: SnapshotSource) {
        self.init(
            path: measurement.path, mountPoint: measurement.mountPoint, fileSystemType: measurement.fileSystemType,
            stats: measurement.stats, state: .fresh, seq: seq, sampledAt: measurement.sampledAt, source: source
        )
        btrfs = measurement.btrfs
        quota = measurement.quota
    }

    public var usedFraction: Fraction? { stats?.usedFraction }

    /// The figures of what the user runs into first: the quota's when one binds, else df's
    /// (`stats`, which the details, JSON and list keep showing). The bar, its percentage,
    /// the levels and the notifications are judged on these.
    public var limitingStats: FilesystemStats? {
        guard let stats else { return nil }
        return quota?.asFilesystemStats(readOnly: stats.readOnly) ?? stats
    }
}
