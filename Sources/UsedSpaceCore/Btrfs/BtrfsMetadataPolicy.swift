/// How close a btrfs filesystem's metadata is to running out where df cannot see it.
public enum BtrfsMetadataLevel: String, Equatable, Hashable, Sendable, CaseIterable {
    /// The metadata can grow into unallocated space, or has room enough in its chunks.
    case ok
    /// It cannot grow, and less than a quarter of its chunks is free beyond the reserve.
    case low
    /// It cannot grow, and less than a tenth is free: writes will soon fail with ENOSPC.
    case full
}

/// Judges a btrfs filesystem's metadata (BtrfsAllocation) the way an administrator would:
/// once the metadata cannot grow (no unallocated space for another chunk), the only room
/// left is what its chunks have free beyond the global reserve; when that runs out, writes
/// fail with "No space left on device" however much df says is free.
///
/// Measured on a 1 GiB filesystem (`-m single`) filled with small files: df showed 454 MB
/// available while the metadata, unable to grow, had 8 % left; 5 MB later every create
/// failed with ENOSPC (and then the kernel made df say 0). Hence the limits: `low` below
/// 25 % free, `full` below 10 %. A level, once reached, is kept until the share is two
/// points above its limit (or the metadata can grow again), so that the back and forth of
/// copy-on-write does not make it flap.
public struct BtrfsMetadataPolicy: Equatable, Sendable {
    /// Below this share of the metadata free (beyond the reserve): low.
    public var lowShare = Fraction(numerator: 25, denominator: 100)
    /// Below this: full.
    public var fullShare = Fraction(numerator: 10, denominator: 100)
    /// How far above its limit a level's share must be to leave it.
    public var hysteresis = Fraction(numerator: 2, denominator: 100)

    public init() {}

    public func level(of allocation: BtrfsAllocation, previous: BtrfsMetadataLevel) -> BtrfsMetadataLevel {
        guard !allocation.metadataCanGrow, allocation.metadata.totalBytes > 0 else { return .ok }
        let share = Fraction(numerator: allocation.metadataAvailableBytes, denominator: allocation.metadata.totalBytes)
        func below(_ limit: Fraction, keeping level: BtrfsMetadataLevel) -> Bool {
            // share < limit (+ hysteresis while at that level or a worse one), exactly.
            let slack = previous.severityRank >= level.severityRank ? hysteresis : Fraction(numerator: 0, denominator: 1)
            let left = UInt128(share.numerator) * UInt128(limit.denominator) * UInt128(slack.denominator)
            let right = (UInt128(limit.numerator) * UInt128(slack.denominator) + UInt128(slack.numerator) * UInt128(limit.denominator))
                * UInt128(share.denominator)
            return left < right
        }
        if below(fullShare, keeping: .full) { return .full }
        if below(lowShare, keeping: .low) { return .low }
        return .ok
    }
}

extension BtrfsMetadataLevel {
    var severityRank: Int {
        switch self {
        case .ok: 0
        case .low: 1
        case .full: 2
        }
    }
}
