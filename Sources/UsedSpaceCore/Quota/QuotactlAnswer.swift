/// quotactl(2)'s answer to Q_GETQUOTA, `struct if_dqblk` of <linux/quota.h>, decoded from
/// its bytes (x86-64 and every little-endian Linux: nine fields, eight u64 then a u32, 72
/// bytes with padding). ext4, xfs and others answer it for user, group and project quotas.
///
/// Not tried on a real kernel here: the machines this was built on have no quota support
/// (an ext4 or xfs mount with quota options is refused), so the tests give answers made to
/// the header's layout.
public enum QuotactlAnswer {
    /// `sizeof(struct if_dqblk)`.
    public static let size = 72
    /// Q_GETQUOTA's block limits are in units of QIF_DQBLKSIZE; `dqb_curspace` is in bytes.
    static let limitUnit: UInt64 = 1024
    /// `dqb_valid` bits: QIF_BLIMITS (the block limits) and QIF_SPACE (the space used).
    static let blockLimitsValid: UInt32 = 1
    static let spaceValid: UInt32 = 2

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case truncated(Int)
        case incomplete(valid: UInt32)

        public var description: String {
            switch self {
            case .truncated(let count): return "quotactl's answer has \(count) bytes, not \(QuotactlAnswer.size)"
            case .incomplete(let valid): return "quotactl's answer lacks the block limits or the space used (dqb_valid \(valid))"
            }
        }
    }

    /// The quota of `kind` the answer describes, or nil when it sets no block limit (both
    /// limits 0). The hard limit is where writes fail; a soft limit alone only starts a grace
    /// time, after which it refuses writes too, so it counts when no hard limit is set.
    public static func quota(kind: Quota.Kind, from bytes: [UInt8]) throws(Failure) -> Quota? {
        guard bytes.count >= size else { throw .truncated(bytes.count) }
        func u64(_ field: Int) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[field * 8 + $1]) << (8 * UInt64($1)) }
        }
        let valid = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[64 + $1]) << (8 * UInt32($1)) }
        guard valid & (blockLimitsValid | spaceValid) == blockLimitsValid | spaceValid else { throw .incomplete(valid: valid) }
        let hard = u64(0), soft = u64(1), usedBytes = u64(2)
        let limit = hard != 0 ? hard : soft
        guard limit != 0 else { return nil }
        let (limitBytes, overflow) = limit.multipliedReportingOverflow(by: limitUnit)
        return Quota(kind: kind, usedBytes: usedBytes, limitBytes: overflow ? .max : limitBytes)
    }
}
