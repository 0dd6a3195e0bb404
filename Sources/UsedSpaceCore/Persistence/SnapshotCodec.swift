/// The snapshot as it is persisted (the state file) and as golden tests describe their
/// input: the raw block counts, so that every derived figure is recomputed exactly.
public enum SnapshotCodec {
    public static let formatVersion = 1

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case invalidJSON(JSONParser.Failure)
        case notAnObject
        case unsupportedVersion(String)
        case missing(String)
        case invalid(String, reason: String)

        public var description: String {
            switch self {
            case .invalidJSON(let failure): return failure.description
            case .notAnObject: return "not a JSON object"
            case .unsupportedVersion(let version): return "unsupported format version \(version) (this program writes \(SnapshotCodec.formatVersion))"
            case .missing(let key): return "the key '\(key)' is missing"
            case .invalid(let key, let reason): return "the key '\(key)' \(reason)"
            }
        }
    }

    public static func encode(_ snapshot: Snapshot) -> String {
        var json = JSONObjectWriter()
        json.add("version", formatVersion)
        json.add("path", snapshot.path)
        json.add("mountpoint", snapshot.mountPoint)
        json.add("fstype", snapshot.fileSystemType)
        if let stats = snapshot.stats {
            json.add("block_size", stats.blockSize)
            json.add("total_blocks", stats.totalBlocks)
            json.add("free_blocks", stats.freeBlocks)
            json.add("available_blocks", stats.availableBlocks)
            json.add("total_inodes", stats.totalInodes)
            json.add("free_inodes", stats.freeInodes)
            if stats.readOnly { json.add("read_only", true) }
        }
        if snapshot.notMounted { json.add("not_mounted", true) }
        if snapshot.watchEnded { json.add("watch_ended", true) }
        json.add("state", snapshot.state.rawValue)
        json.add("seq", snapshot.seq)
        json.add("sampled_at", snapshot.sampledAt.rfc3339)
        json.add("error", snapshot.error)
        if let estimate = snapshot.timeToFull {
            json.add("full_lower_seconds", Int(estimate.lowerSeconds))
            json.add("full_upper_seconds", Int(estimate.upperSeconds))
        }
        if let fill = snapshot.fastFill { json.addRaw("fast_fill", SpaceDetailsCodec.encode(fill)) }
        if let btrfs = snapshot.btrfs { json.addRaw("btrfs", SpaceDetailsCodec.encode(btrfs)) }
        if let quota = snapshot.quota { json.addRaw("quota", SpaceDetailsCodec.encode(quota)) }
        if let problem = snapshot.configurationProblem { json.add("config_error", problem) }
        if let level = snapshot.level { json.add("level", level.name) }
        if let found = snapshot.fillWriters {
            var writers = JSONObjectWriter()
            writers.addRaw("writers", "[" + found.writers.map { $0.jsonObject }.joined(separator: ",") + "]")
            writers.add("grew", found.sawGrowth)
            writers.add("home", found.home)
            json.addRaw("fill_writers", writers.finish())
        }
        return json.finish()
    }

    public static func decode(_ text: String, source: SnapshotSource) throws(Failure) -> Snapshot {
        let value: JSONValue
        do { value = try JSONParser.parse(text) } catch { throw .invalidJSON(error) }
        return try decode(value, source: source)
    }

    public static func decode(_ value: JSONValue, source: SnapshotSource) throws(Failure) -> Snapshot {
        guard case .object = value else { throw .notAnObject }
        guard let version = value["version"] else { throw .missing("version") }
        guard version.intValue == formatVersion else {
            throw .unsupportedVersion(version.intValue.map(String.init) ?? "(not a number)")
        }
        let path = try string("path", in: value)
        guard path.hasPrefix("/") else { throw .invalid("path", reason: "is not an absolute path") }
        let stateText = try string("state", in: value)
        guard let state = SnapshotState(rawValue: stateText) else {
            throw .invalid("state", reason: "is not fresh, stale or failed")
        }
        let sampledAtText = try string("sampled_at", in: value)
        guard let sampledAt = Timestamp(rfc3339: sampledAtText) else {
            throw .invalid("sampled_at", reason: "is not an RFC 3339 time")
        }
        var stats: FilesystemStats?
        if value["total_blocks"] != nil {
            let parsed = FilesystemStats(
                blockSize: try count("block_size", in: value),
                totalBlocks: try count("total_blocks", in: value),
                freeBlocks: try count("free_blocks", in: value),
                availableBlocks: try count("available_blocks", in: value),
                totalInodes: try count("total_inodes", in: value),
                freeInodes: try count("free_inodes", in: value),
                readOnly: try flag("read_only", in: value)
            )
            guard parsed.blockSize > 0, parsed.totalBlocks > 0, parsed.freeBlocks <= parsed.totalBlocks,
                  parsed.usableBlocks > 0
            else { throw .invalid("total_blocks", reason: "and the other block counts do not describe a filesystem") }
            stats = parsed
        }
        if state != .failed && stats == nil { throw .missing("total_blocks") }
        var timeToFull: TimeToFull?
        if value["full_lower_seconds"] != nil || value["full_upper_seconds"] != nil {
            let lower = try count("full_lower_seconds", in: value), upper = try count("full_upper_seconds", in: value)
            guard lower <= upper, upper <= UInt64(Int64.max) else { throw .invalid("full_upper_seconds", reason: "is below full_lower_seconds") }
            timeToFull = TimeToFull(lowerSeconds: Int64(lower), upperSeconds: Int64(upper))
        }
        var snapshot = Snapshot(
            path: path,
            mountPoint: try optionalString("mountpoint", in: value),
            fileSystemType: try optionalString("fstype", in: value),
            stats: stats,
            state: state,
            seq: try sequenceNumber(in: value),
            sampledAt: sampledAt,
            source: source,
            error: try optionalString("error", in: value),
            timeToFull: timeToFull
        )
        snapshot.configurationProblem = try optionalString("config_error", in: value)
        snapshot.notMounted = try flag("not_mounted", in: value)
        snapshot.watchEnded = try flag("watch_ended", in: value)
        // Absent from an older daemon's line or state file: the view decides it then.
        if let name = try optionalString("level", in: value) {
            guard let level = Severity(name: name) else { throw .invalid("level", reason: "is not normal, warning or critical") }
            snapshot.level = level
        }
        if let fill = value["fast_fill"], !fill.isNull { snapshot.fastFill = try SpaceDetailsCodec.decodeFastFill(fill) }
        if let found = value["fill_writers"], !found.isNull { snapshot.fillWriters = try fillWriters(found) }
        if let btrfs = value["btrfs"], !btrfs.isNull {
            guard stats != nil else { throw .invalid("btrfs", reason: "is there without the block counts") }
            snapshot.btrfs = try SpaceDetailsCodec.decodeBtrfs(btrfs)
        }
        if let quota = value["quota"], !quota.isNull {
            guard stats != nil else { throw .invalid("quota", reason: "is there without the block counts") }
            snapshot.quota = try SpaceDetailsCodec.decodeQuota(quota)
        }
        return snapshot
    }

    /// Who the daemon's helper found filling the filesystem, checked as its answer is.
    private static func fillWriters(_ value: JSONValue) throws(Failure) -> FillWriters {
        guard case .array(let list)? = value["writers"], let grew = value["grew"]?.boolValue else {
            throw .invalid("fill_writers", reason: "is not a list of writers and whether the filesystem grew")
        }
        let writers: [FillWriter]
        do { writers = try FillWriterExchange.writers(list) } catch { throw .invalid("fill_writers", reason: "has \(error.description)") }
        return FillWriters(writers, sawGrowth: grew, home: try optionalString("home", in: value))
    }

    private static func string(_ key: String, in object: JSONValue) throws(Failure) -> String {
        guard let member = object[key] else { throw .missing(key) }
        guard let text = member.stringValue else { throw .invalid(key, reason: "is not a string") }
        return text
    }

    private static func optionalString(_ key: String, in object: JSONValue) throws(Failure) -> String? {
        guard let member = object[key], !member.isNull else { return nil }
        guard let text = member.stringValue else { throw .invalid(key, reason: "is not a string") }
        return text
    }

    /// An optional boolean, false when absent (written only when true).
    private static func flag(_ key: String, in object: JSONValue) throws(Failure) -> Bool {
        guard let member = object[key] else { return false }
        guard let value = member.boolValue else { throw .invalid(key, reason: "is not true or false") }
        return value
    }

    /// The largest `seq` a snapshot may carry: 2^53 − 1, what every JSON reader (jq,
    /// JavaScript) holds exactly, and more publishes than a daemon makes in 285,000 years at
    /// a thousand a second. Anything above is a damaged file, and taking it would make the
    /// next publish wrap around to 0: seq must never go back.
    public static let maximumSequenceNumber: UInt64 = 1 << 53 - 1

    private static func sequenceNumber(in object: JSONValue) throws(Failure) -> UInt64 {
        let seq = try count("seq", in: object)
        guard seq <= maximumSequenceNumber else { throw .invalid("seq", reason: "is above 2^53 - 1, more than any daemon publishes") }
        return seq
    }

    private static func count(_ key: String, in object: JSONValue) throws(Failure) -> UInt64 {
        guard let member = object[key] else { throw .missing(key) }
        guard let number = member.uint64Value else { throw .invalid(key, reason: "is not a non-negative integer") }
        return number
    }
}
