import CLinux
import CLinux
import UsedSpaceCore

/// The quotas that limit what the calling user may write at a path, read as that user
/// (never as root, and never another user's):
/// - on btrfs, the limits of the level-0 qgroup of the path's subvolume (sysfs, with the
///   subvolume's id from BTRFS_IOC_INO_LOOKUP);
/// - elsewhere, quotactl_fd(2) Q_GETQUOTA for the user's uid, group's gid, and the path's
///   project id. Not tried on a real kernel with quotas (see QuotactlAnswer).
/// Every call touches the path's own filesystem: call it where sampling may block.
public enum QuotaReader {
    public static func read(at path: String, fileSystemType: String, sysfs: BtrfsSysfs?) -> [Quota] {
        guard let file = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK) else { return [] }
        if fileSystemType == "btrfs" {
            var subvolume: UInt64 = 0
            guard let sysfs, clinux_btrfs_subvolume_id(file.rawValue, &subvolume) == 0,
                  let reading = BtrfsQgroupParser.read(subvolume: subvolume, from: sysfs) else { return [] }
            return reading
        }
        var quotas: [Quota] = []
        var project: UInt32 = 0
        let owners: [(Quota.Kind, Int32, UInt32?)] = [
            (.user, 0, getuid()), (.group, 1, getgid()),
            (.project, 2, clinux_project_id(file.rawValue, &project) == 0 && project != 0 ? project : nil),
        ]
        for (kind, type, id) in owners {
            guard let id else { continue }
            var answer = [UInt8](repeating: 0, count: QuotactlAnswer.size)
            // ESRCH (quotas off), ENOSYS (before 5.14), EPERM: no quota of this kind to show.
            guard clinux_get_quota(file.rawValue, type, id, &answer, Int32(answer.count)) == 0,
                  let quota = try? QuotactlAnswer.quota(kind: kind, from: answer) else { continue }
            quotas.append(quota)
        }
        return quotas
    }
}
