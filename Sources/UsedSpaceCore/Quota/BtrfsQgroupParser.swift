/// The limits of a subvolume's level-0 qgroup, from `/sys/fs/btrfs/<fsid>/qgroups/0_<id>/`
/// (readable without root; checked on 6.x): `referenced` and `exclusive` in bytes,
/// `max_referenced` and `max_exclusive`, and `limit_flags` saying which of the two is set
/// (BTRFS_QGROUP_LIMIT_MAX_RFER = 1, MAX_EXCL = 2; a removed limit is 0 with its flag off).
/// Higher-level qgroups (`1/0`…) are in sysfs too, but which of them hold the subvolume is
/// not: only a privileged tree search says so, so they are not read.
public enum BtrfsQgroupParser {
    static let referencedFlag: UInt64 = 1
    static let exclusiveFlag: UInt64 = 2

    /// The directory of a subvolume's qgroup, relative to the filesystem's sysfs directory.
    public static func directory(subvolume: UInt64) -> String { "qgroups/0_\(subvolume)" }

    /// The limits set, referenced before exclusive (empty when none is); nil when quotas are
    /// not enabled on the filesystem (no `qgroups/` directory, or
    /// `enabled` is not 1) or the subvolume has no qgroup; the files are read as the kernel
    /// writes them, a number and a newline, and anything else counts as unreadable.
    public static func read(subvolume: UInt64, from source: some BtrfsSysfsSource) -> [Quota]? {
        guard number(source.text("qgroups/enabled")) == 1 else { return nil }
        let directory = directory(subvolume: subvolume)
        guard let flags = number(source.text(directory + "/limit_flags")) else { return nil }
        var quotas: [Quota] = []
        for (flag, kind, used, limit) in [(referencedFlag, Quota.Kind.btrfsReferenced, "referenced", "max_referenced"),
                                          (exclusiveFlag, Quota.Kind.btrfsExclusive, "exclusive", "max_exclusive")]
        where flags & flag != 0 {
            guard let usedBytes = number(source.text(directory + "/" + used)),
                  let limitBytes = number(source.text(directory + "/" + limit)), limitBytes > 0 else { continue }
            quotas.append(Quota(kind: kind, usedBytes: usedBytes, limitBytes: limitBytes))
        }
        return quotas
    }

    private static func number(_ text: String?) -> UInt64? {
        guard let text else { return nil }
        var digits = Substring(text)
        if digits.last == "\n" { digits = digits.dropLast() }
        return UInt64(digits)
    }
}
