/// A limit on what the user may write to a filesystem that is not the filesystem's size: a
/// btrfs qgroup of the subvolume, or a user, group or project quota. When one leaves less
/// room than the filesystem does, it is the limit the user hits first (EDQUOT while df
/// still shows free space), and the bar, the level and the estimates follow it.
public struct Quota: Equatable, Hashable, Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        /// `max_referenced` of the subvolume's level-0 qgroup: all the data it refers to.
        case btrfsReferenced = "btrfs-referenced"
        /// `max_exclusive`: the data only this subvolume refers to (not shared by snapshots).
        case btrfsExclusive = "btrfs-exclusive"
        /// quotactl(2) Q_GETQUOTA of the user's uid, group's gid, or the directory's project.
        case user, group, project

        /// A few words for the details: "btrfs qgroup", "user quota".
        public var description: String {
            switch self {
            case .btrfsReferenced: return "btrfs qgroup"
            case .btrfsExclusive: return "btrfs qgroup (exclusive)"
            case .user: return "user quota"
            case .group: return "group quota"
            case .project: return "project quota"
            }
        }
    }

    public var kind: Kind
    /// What counts against the limit now.
    public var usedBytes: UInt64
    /// The hard limit: writes fail once it is reached.
    public var limitBytes: UInt64

    public init(kind: Kind, usedBytes: UInt64, limitBytes: UInt64) {
        self.kind = kind
        self.usedBytes = usedBytes
        self.limitBytes = limitBytes
    }

    /// What may still be written under this limit (none once it is reached or passed, as a
    /// btrfs qgroup may be by a little).
    public var availableBytes: UInt64 { limitBytes > usedBytes ? limitBytes - usedBytes : 0 }

    /// The quota's figures in the shape of statvfs's, so that every rule made for a
    /// filesystem (the bar, df's Use%, the levels, the estimates) applies to it unchanged:
    /// one-byte blocks, the limit as the size (or what is used, when that is more), nothing
    /// reserved, no inodes.
    public func asFilesystemStats(readOnly: Bool = false) -> FilesystemStats {
        FilesystemStats(blockSize: 1, totalBlocks: max(limitBytes, usedBytes), freeBlocks: availableBytes,
                        availableBlocks: availableBytes, readOnly: readOnly)
    }

    /// The quota among `quotas` that leaves the least room, when that is less than the
    /// filesystem leaves (its df Avail): the one the user runs into first. nil when the
    /// filesystem itself is the limit, or there is none.
    public static func binding(_ quotas: [Quota], on stats: FilesystemStats) -> Quota? {
        let tightest = quotas.min { ($0.availableBytes, $0.limitBytes) < ($1.availableBytes, $1.limitBytes) }
        guard let tightest, tightest.availableBytes < stats.freeBytes else { return nil }
        return tightest
    }
}
