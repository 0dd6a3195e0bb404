/// Which `/sys/fs/btrfs/<fsid>` directory belongs to a path, found from the path's statvfs
/// `f_fsid` alone: no device node is opened (the daemon's sandbox has no /dev of the host,
/// PrivateDevices=yes), and nothing but sysfs, which cannot hang, is read.
///
/// The mount's device numbers in mountinfo do not lead there: btrfs gives each subvolume an
/// anonymous device (0:39), not the block device (7:0) that `devices/*/dev` lists. Its
/// statfs does (fs/btrfs/super.c, `btrfs_statfs`) compute `f_fsid` from the filesystem's
/// UUID, the name of that directory, mixed with the subvolume's id:
///
///     val[0] = be32(uuid[0..<4]) ^ be32(uuid[8..<12]) ^ (subvolume >> 32)
///     val[1] = be32(uuid[4..<8]) ^ be32(uuid[12..<16]) ^ (subvolume & 0xffffffff)
///
/// and glibc returns `val[0] | val[1] << 32` as the 64-bit `f_fsid`. So a directory
/// matches when the UUID's halves give `val[0]` exactly and leave, in `val[1]`, a plausible
/// subvolume id: 5 (the top level) or a created one, from 256 up (well below 2³²).
public enum BtrfsFileSystemID {
    /// The UUID's 16 bytes from its text form (`a692204e-f5b8-4d3a-a768-c3bd19626eee`).
    public static func uuidBytes(_ text: String) -> [UInt8]? {
        let hex = Array(text.utf8).filter { $0 != UInt8(ascii: "-") }
        guard text.utf8.count == 36, hex.count == 32 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = digit(hex[index]), let low = digit(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The subvolume id that `fsid` (statvfs `f_fsid`) gives for the filesystem with this
    /// UUID, or nil when it cannot be this filesystem's.
    public static func subvolume(of fsid: UInt64, uuid: [UInt8]) -> UInt64? {
        guard uuid.count == 16 else { return nil }
        func word(_ at: Int) -> UInt32 {
            UInt32(uuid[at]) << 24 | UInt32(uuid[at + 1]) << 16 | UInt32(uuid[at + 2]) << 8 | UInt32(uuid[at + 3])
        }
        let low = word(0) ^ word(8), high = word(4) ^ word(12)
        let value0 = UInt32(truncatingIfNeeded: fsid), value1 = UInt32(truncatingIfNeeded: fsid >> 32)
        guard value0 == low else { return nil }
        let subvolume = UInt64(value1 ^ high)
        return subvolume == 5 || subvolume >= 256 ? subvolume : nil
    }

    /// The one directory name among `names` (the entries of /sys/fs/btrfs) that `fsid`
    /// belongs to; nil when none does, or more than one could (never guess).
    public static func directory(for fsid: UInt64, among names: [String]) -> String? {
        let matches = names.filter { name in uuidBytes(name).flatMap { subvolume(of: fsid, uuid: $0) } != nil }
        return matches.count == 1 ? matches[0] : nil
    }

    private static func digit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
