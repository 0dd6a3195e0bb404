/// How a btrfs filesystem has allocated its devices, as the kernel shows it in
/// `/sys/fs/btrfs/<fsid>/allocation/` (no root needed): what df cannot see.
///
/// btrfs hands out its devices in chunks, each for data or for metadata (and a few for the
/// system tree). df's Avail counts the free space inside data chunks plus what could still
/// be allocated; once the devices are all allocated (nothing "unallocated") and the metadata
/// chunks are full, writes fail with ENOSPC although df still shows room. The figures here
/// are those of `btrfs filesystem usage -b`: `unallocatedBytes` is its "Device unallocated".
public struct BtrfsAllocation: Equatable, Hashable, Sendable {
    /// One kind of chunk (data, metadata or system): `allocation/<kind>/`.
    public struct Chunks: Equatable, Hashable, Sendable {
        /// `total_bytes`: the logical size of the chunks (what they can hold).
        public var totalBytes: UInt64
        /// `bytes_used`: what they hold.
        public var usedBytes: UInt64
        /// `disk_total`: the raw device space they take, every copy counted (twice the
        /// logical size for DUP and RAID1).
        public var diskTotalBytes: UInt64
        /// The profiles in use ("single", "dup", "raid1"…), the names of the kernel's
        /// subdirectories; more than one while a balance converts.
        public var profiles: [String]

        public init(totalBytes: UInt64, usedBytes: UInt64, diskTotalBytes: UInt64, profiles: [String]) {
            self.totalBytes = totalBytes
            self.usedBytes = usedBytes
            self.diskTotalBytes = diskTotalBytes
            self.profiles = profiles
        }

        /// Raw device bytes per logical byte: 1.00 for single, 2.00 for DUP or RAID1 (btrfs
        /// filesystem usage's "Data ratio" and "Metadata ratio"); nil before any chunk exists.
        public var ratio: Double? {
            totalBytes == 0 ? nil : Double(diskTotalBytes) / Double(totalBytes)
        }

        /// Free space inside the chunks already allocated.
        public var freeBytes: UInt64 { totalBytes >= usedBytes ? totalBytes - usedBytes : 0 }
    }

    /// The size of the filesystem's devices together (btrfs filesystem usage's "Device size").
    public var deviceBytes: UInt64
    public var data: Chunks
    public var metadata: Chunks
    public var system: Chunks
    /// `global_rsv_size`: metadata space kept back for the operations that must not fail
    /// (deleting files to make room among them).
    public var globalReserveBytes: UInt64
    /// How much raw device space the next metadata chunk needs: its size (the kernel's
    /// `chunk_size`, at most a tenth of the devices) times the copies of its profile.
    public var metadataChunkDiskBytes: UInt64
    /// The metadata's state, as judged when the allocation was read (BtrfsMetadataPolicy,
    /// which keeps a level until it is clearly left).
    public var metadataLevel: BtrfsMetadataLevel
    /// Mixed block groups (`mkfs.btrfs --mixed`, the default below 109 MiB): data and
    /// metadata share chunks (`data` holds them; `metadata` is empty), and df's figures
    /// account for both, so the metadata cannot run out behind df's back.
    public var isMixed = false

    public init(
        deviceBytes: UInt64, data: Chunks, metadata: Chunks, system: Chunks, globalReserveBytes: UInt64,
        metadataChunkDiskBytes: UInt64, metadataLevel: BtrfsMetadataLevel = .ok
    ) {
        self.deviceBytes = deviceBytes
        self.data = data
        self.metadata = metadata
        self.system = system
        self.globalReserveBytes = globalReserveBytes
        self.metadataChunkDiskBytes = metadataChunkDiskBytes
        self.metadataLevel = metadataLevel
    }

    /// Device space given to chunks of any kind ("Device allocated").
    public var allocatedBytes: UInt64 {
        let (partial, first) = data.diskTotalBytes.addingReportingOverflow(metadata.diskTotalBytes)
        let (sum, second) = partial.addingReportingOverflow(system.diskTotalBytes)
        return first || second ? .max : sum
    }

    /// Device space not yet given to any chunk ("Device unallocated"): where new data or
    /// metadata chunks come from.
    public var unallocatedBytes: UInt64 { deviceBytes >= allocatedBytes ? deviceBytes - allocatedBytes : 0 }

    /// Whether a new metadata chunk of the usual size still fits in the unallocated space.
    /// When it does not, the metadata can only fill the chunks it has (the kernel may still
    /// squeeze a smaller chunk into what is left, which buys little).
    public var metadataCanGrow: Bool { isMixed || unallocatedBytes >= metadataChunkDiskBytes }

    /// The metadata chunks' free space beyond the global reserve: what ordinary writes can
    /// still use once the metadata cannot grow.
    public var metadataAvailableBytes: UInt64 {
        let free = metadata.freeBytes
        return free >= globalReserveBytes ? free - globalReserveBytes : 0
    }
}
