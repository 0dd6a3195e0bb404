/// The numbers `statvfs(3)` reports for one filesystem, in blocks, and everything derived
/// from them the way coreutils `df` derives it, so that our figures match `df` exactly.
public struct FilesystemStats: Equatable, Hashable, Sendable {
    /// `f_frsize`, or `f_bsize` when a filesystem reports a zero fragment size (as df does).
    public var blockSize: UInt64
    /// `f_blocks`
    public var totalBlocks: UInt64
    /// `f_bfree`: free blocks, including those reserved for root.
    public var freeBlocks: UInt64
    /// `f_bavail`: free blocks an unprivileged user may use.
    public var availableBlocks: UInt64
    /// `f_files`; 0 where the filesystem has no fixed inode table (btrfs).
    public var totalInodes: UInt64
    /// `f_ffree`
    public var freeInodes: UInt64
    /// The filesystem is read-only (MountEntry.readOnly: its superblock). Not statvfs's
    /// `ST_RDONLY`, which also says so of a read-only view of a writable filesystem: under
    /// the shipped unit's sandbox every filesystem is such a view.
    public var readOnly: Bool

    public init(
        blockSize: UInt64, totalBlocks: UInt64, freeBlocks: UInt64, availableBlocks: UInt64,
        totalInodes: UInt64 = 0, freeInodes: UInt64 = 0, readOnly: Bool = false
    ) {
        self.readOnly = readOnly
        self.blockSize = blockSize
        self.totalBlocks = totalBlocks
        self.freeBlocks = freeBlocks
        self.availableBlocks = availableBlocks
        self.totalInodes = totalInodes
        self.freeInodes = freeInodes
    }

    /// Blocks in use: `f_blocks − f_bfree` (never negative).
    public var usedBlocks: UInt64 { totalBlocks >= freeBlocks ? totalBlocks - freeBlocks : 0 }

    /// Blocks free but reserved for root: `f_bfree − f_bavail`, clamped at 0.
    public var reservedBlocks: UInt64 { freeBlocks >= availableBlocks ? freeBlocks - availableBlocks : 0 }

    /// df's denominator: what is used plus what the user could still use. Reserved blocks
    /// count in neither, which is why df's Use% is higher than used/total.
    public var usableBlocks: UInt64 {
        let (sum, overflow) = usedBlocks.addingReportingOverflow(availableBlocks)
        return overflow ? .max : sum
    }

    public var totalBytes: UInt64 { Self.bytes(totalBlocks, blockSize) }
    public var usedBytes: UInt64 { Self.bytes(usedBlocks, blockSize) }
    /// Available to an unprivileged user (df's "Avail").
    public var freeBytes: UInt64 { Self.bytes(availableBlocks, blockSize) }
    public var reservedBytes: UInt64 { Self.bytes(reservedBlocks, blockSize) }

    /// The used rate as an exact fraction, the basis of every comparison.
    public var usedFraction: Fraction? {
        usableBlocks == 0 ? nil : Fraction(numerator: usedBlocks, denominator: usableBlocks)
    }

    /// `used / (used + available)`, or nil when the filesystem has no usable blocks.
    public var usedRate: Double? { usedFraction?.doubleValue }

    /// Exactly df's integer Use%: ⌈100 · used / (used + available)⌉ (coreutils df.c).
    public var usedPercent: Int? { usedFraction?.ceilingOfScaled(by: 100).clampedToInt }

    /// Used inodes, or nil when the filesystem does not report an inode table.
    public var usedInodes: UInt64? {
        guard totalInodes > 0 else { return nil }
        return totalInodes >= freeInodes ? totalInodes - freeInodes : 0
    }

    private static func bytes(_ blocks: UInt64, _ size: UInt64) -> UInt64 {
        let (product, overflow) = blocks.multipliedReportingOverflow(by: size)
        return overflow ? .max : product
    }
}

extension UInt128 {
    var clampedToInt: Int { self > UInt128(Int.max) ? Int.max : Int(self) }
}
