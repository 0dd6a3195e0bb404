/// Where the parser reads the files of one filesystem's `/sys/fs/btrfs/<fsid>/` directory:
/// paths relative to it. The system reads sysfs (BtrfsSysfs); tests give fixed texts.
public protocol BtrfsSysfsSource {
    /// The contents of a file, or nil when it cannot be read.
    func text(_ relativePath: String) -> String?
    /// The names in a directory; none when it cannot be listed.
    func entries(_ relativePath: String) -> [String]
}

/// Reads a `BtrfsAllocation` from the files of `/sys/fs/btrfs/<fsid>/` (Linux 5.x and
/// later; checked against `btrfs filesystem usage -b` on 6.18):
///
/// - `allocation/{data,metadata,system}/total_bytes`, `bytes_used`, `disk_total`, and the
///   profile subdirectories (`single`, `dup`, `raid1`…); a filesystem with mixed block
///   groups has `allocation/mixed` instead of data and metadata;
/// - `allocation/metadata/chunk_size` and `allocation/global_rsv_size`;
/// - `devices/<name>/size`: each device's size in 512-byte sectors.
///
/// The device sizes are those of the block devices; after `btrfs filesystem resize` to less
/// than its device, a filesystem uses less ("Device slack"). statfs's `f_blocks` is the
/// filesystem's own size divided by the data profile's copies, so when the block devices add
/// up to more than that allows, the size is taken from `f_blocks` instead.
public enum BtrfsAllocationParser {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unreadable(String)
        case notANumber(String, text: String)
        case noDevices

        public var description: String {
            switch self {
            case .unreadable(let file): return "cannot read \(file)"
            case .notANumber(let file, let text): return "\(file): '\(ControlCharacters.replaced(in: String(text.prefix(40))))' is not a byte count"
            case .noDevices: return "devices/: no device with a size"
            }
        }
    }

    /// The profiles btrfs knows, with the copies statfs divides the size by for each
    /// (`btrfs_raid_array[].ncopies`).
    public static let profileCopies: [String: UInt64] = [
        "single": 1, "dup": 2, "raid0": 1, "raid1": 2, "raid1c3": 3, "raid1c4": 4, "raid10": 2, "raid5": 1, "raid6": 1,
    ]

    /// The metadata chunk size the kernel uses at most: a tenth of the writable devices.
    static let maximumChunkShare: UInt64 = 10

    /// `statistics` is the statvfs of the same filesystem (for the device slack, above).
    public static func parse<Source: BtrfsSysfsSource>(_ source: Source, statistics: FilesystemStats?) throws(Failure) -> BtrfsAllocation {
        var deviceBytes: UInt64 = 0
        var devices = 0
        for name in source.entries("devices").sorted() {
            guard let text = source.text("devices/\(name)/size") else { continue }
            let sectors = try number(text, file: "devices/\(name)/size")
            let (bytes, overflow) = sectors.multipliedReportingOverflow(by: 512)
            let (sum, overflowSum) = deviceBytes.addingReportingOverflow(bytes)
            deviceBytes = overflow || overflowSum ? .max : sum
            devices += 1
        }
        guard devices > 0, deviceBytes > 0 else { throw .noDevices }

        let isMixed = source.entries("allocation").contains("mixed")
        let data = try chunks(isMixed ? "mixed" : "data", source)
        let metadata = try isMixed ? data : chunks("metadata", source)
        let system = try chunks("system", source)
        let reserve = try number(try read("allocation/global_rsv_size", source), file: "allocation/global_rsv_size")

        if let statistics, data.profiles.count == 1, let copies = profileCopies[data.profiles[0]] {
            let size = UInt128(statistics.totalBlocks) * UInt128(copies) * UInt128(statistics.blockSize)
            let roundingAllowance = UInt128(copies - 1) * UInt128(statistics.blockSize)
            if UInt128(deviceBytes) > size + roundingAllowance, size <= UInt128(UInt64.max) { deviceBytes = UInt64(size) }
        }

        var chunkDiskBytes: UInt64 = 0
        if !isMixed {
            let chunkSize = try number(try read("allocation/metadata/chunk_size", source), file: "allocation/metadata/chunk_size")
            let copies = metadata.profiles.compactMap { profileCopies[$0] }.max() ?? metadata.ratio.map { UInt64($0.rounded(.up)) } ?? 1
            let (bytes, overflow) = min(chunkSize, deviceBytes / maximumChunkShare).multipliedReportingOverflow(by: copies)
            chunkDiskBytes = overflow ? .max : bytes
        }
        var allocation = BtrfsAllocation(deviceBytes: deviceBytes, data: data, metadata: isMixed ? .init(totalBytes: 0, usedBytes: 0, diskTotalBytes: 0, profiles: []) : metadata,
                                         system: system, globalReserveBytes: reserve, metadataChunkDiskBytes: chunkDiskBytes)
        allocation.isMixed = isMixed
        allocation.metadataLevel = BtrfsMetadataPolicy().level(of: allocation, previous: .ok)
        return allocation
    }

    private static func chunks<Source: BtrfsSysfsSource>(_ kind: String, _ source: Source) throws(Failure) -> BtrfsAllocation.Chunks {
        let directory = "allocation/\(kind)"
        func value(_ name: String) throws(Failure) -> UInt64 {
            try number(try read("\(directory)/\(name)", source), file: "\(directory)/\(name)")
        }
        let profiles = source.entries(directory).filter { profileCopies[$0] != nil }.sorted()
        return BtrfsAllocation.Chunks(totalBytes: try value("total_bytes"), usedBytes: try value("bytes_used"),
                                      diskTotalBytes: try value("disk_total"), profiles: profiles)
    }

    private static func read<Source: BtrfsSysfsSource>(_ file: String, _ source: Source) throws(Failure) -> String {
        guard let text = source.text(file) else { throw .unreadable(file) }
        return text
    }

    /// A decimal count followed by at most a newline, as sysfs writes it.
    static func number(_ text: String, file: String) throws(Failure) -> UInt64 {
        var digits = Substring(text)
        if digits.hasSuffix("\n") { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.count <= 20, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = UInt64(digits) else {
            throw .notANumber(file, text: text)
        }
        return value
    }
}
