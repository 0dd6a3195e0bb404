/// The properties of `io.github.usedspace.UsedSpace1.Filesystem`, one object per watched
/// filesystem on the session bus: their names, D-Bus types and values (docs/dbus.md). The
/// daemon's vtable is built from this list, so a name or type lives here only.
public enum FilesystemBusProperty: String, CaseIterable, Sendable {
    case path = "Path"
    case mountPoint = "MountPoint"
    case type = "Type"
    case label = "Label"
    case usedRate = "UsedRate"
    case usedPercent = "UsedPercent"
    case usedBytes = "UsedBytes"
    case freeBytes = "FreeBytes"
    case totalBytes = "TotalBytes"
    case reservedBytes = "ReservedBytes"
    case readOnly = "ReadOnly"
    case state = "State"
    case severity = "Severity"
    case error = "Error"
    case timeToFull = "TimeToFull"
    case timeToFullLowerSeconds = "TimeToFullLowerSeconds"
    case timeToFullUpperSeconds = "TimeToFullUpperSeconds"
    case fastFillBytesPerSecond = "FastFillBytesPerSecond"
    case fastFillSecondsToFull = "FastFillSecondsToFull"
    case fastFillWriting = "FastFillWriting"
    case btrfsUnallocatedBytes = "BtrfsUnallocatedBytes"
    case btrfsMetadata = "BtrfsMetadata"
    case quotaKind = "QuotaKind"
    case quotaUsedBytes = "QuotaUsedBytes"
    case quotaLimitBytes = "QuotaLimitBytes"
    case seq = "Seq"
    case sampledAt = "SampledAt"

    public static let interface = "io.github.usedspace.UsedSpace1.Filesystem"

    /// The D-Bus type code of the property's values.
    public var typeCode: UInt8 {
        switch self {
        case .path, .mountPoint, .type, .label, .state, .severity, .error, .timeToFull, .fastFillWriting, .btrfsMetadata, .quotaKind:
            return UInt8(ascii: "s")
        case .usedRate: return UInt8(ascii: "d")
        case .usedPercent: return UInt8(ascii: "i")
        case .usedBytes, .freeBytes, .totalBytes, .reservedBytes, .fastFillBytesPerSecond, .btrfsUnallocatedBytes, .seq,
             .quotaUsedBytes, .quotaLimitBytes:
            return UInt8(ascii: "t")
        case .readOnly: return UInt8(ascii: "b")
        case .timeToFullLowerSeconds, .timeToFullUpperSeconds, .fastFillSecondsToFull, .sampledAt: return UInt8(ascii: "x")
        }
    }

    /// Whether the value can change while the object exists (PropertiesChanged says so);
    /// the watched path names the object and never does.
    public var isConstant: Bool { self == .path }

    public func value(of filesystem: FilesystemBusState) -> BusValue {
        let snapshot = filesystem.snapshot
        let stats = snapshot.stats
        switch self {
        case .path: return .string(filesystem.watchedPath)
        case .mountPoint: return .string(snapshot.mountPoint ?? "")
        case .type: return .string(snapshot.fileSystemType ?? "")
        case .label: return .string(filesystem.label)
        case .usedRate: return .double(stats?.usedRate ?? 0)
        case .usedPercent: return .int32(stats?.usedPercent.map { Int32(clamping: $0) } ?? -1)
        case .usedBytes: return .uint64(stats?.usedBytes ?? 0)
        case .freeBytes: return .uint64(stats?.freeBytes ?? 0)
        case .totalBytes: return .uint64(stats?.totalBytes ?? 0)
        case .reservedBytes: return .uint64(stats?.reservedBytes ?? 0)
        case .readOnly: return .boolean(stats?.readOnly ?? false)
        case .state: return .string(snapshot.state.rawValue)
        case .severity: return .string(filesystem.severity.name)
        case .error: return .string(snapshot.error ?? "")
        case .timeToFull: return .string(snapshot.timeToFull?.description ?? "")
        case .timeToFullLowerSeconds: return .int64(snapshot.timeToFull?.lowerSeconds ?? -1)
        case .timeToFullUpperSeconds: return .int64(snapshot.timeToFull?.upperSeconds ?? -1)
        case .fastFillBytesPerSecond: return .uint64(filesystem.fastFill?.bytesPerSecond ?? 0)
        case .fastFillSecondsToFull: return .int64(filesystem.fastFill?.secondsToFull ?? -1)
        case .fastFillWriting: return .string(SpaceDetailsText.writing(snapshot))
        case .btrfsUnallocatedBytes: return .uint64(snapshot.btrfs?.unallocatedBytes ?? 0)
        case .btrfsMetadata: return .string(snapshot.btrfs?.metadataLevel.rawValue ?? "")
        case .quotaKind: return .string(snapshot.quota?.kind.rawValue ?? "")
        case .quotaUsedBytes: return .uint64(snapshot.quota?.usedBytes ?? 0)
        case .quotaLimitBytes: return .uint64(snapshot.quota?.limitBytes ?? 0)
        case .seq: return .uint64(snapshot.seq)
        case .sampledAt: return .int64(snapshot.sampledAt.secondsSinceEpoch)
        }
    }

    /// The properties whose values differ between two states of one object, in the
    /// interface's order: what a PropertiesChanged signal carries.
    public static func changed(from old: FilesystemBusState, to new: FilesystemBusState) -> [FilesystemBusProperty] {
        allCases.filter { !$0.isConstant && $0.value(of: old) != $0.value(of: new) }
    }
}

/// What one filesystem's object shows: its watch's snapshot, with the label the
/// configuration gives it and the level the daemon decided (FilesystemLevel).
public struct FilesystemBusState: Equatable, Sendable {
    /// The path as the daemon watches it (`~` expanded): the object's name.
    public var watchedPath: String
    public var snapshot: Snapshot
    public var label: String
    public var severity: Severity

    /// `limits` decide the level of a snapshot that carries none (restored from an older
    /// state file), as a first publish would.
    public init(watchedPath: String, snapshot: Snapshot, label: String, limits: SeverityPolicy) {
        self.watchedPath = watchedPath
        self.snapshot = snapshot
        self.label = label
        severity = FilesystemLevel.carried(by: snapshot, limits: limits)
    }

    /// A fill caught in the act counts only on fresh numbers, as the bars show it.
    var fastFill: FastFill? { snapshot.state == .fresh ? snapshot.fastFill : nil }
}
