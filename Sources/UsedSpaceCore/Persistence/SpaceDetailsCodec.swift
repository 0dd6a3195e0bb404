/// The persisted form of a snapshot's `btrfs` and `fast_fill` (SnapshotCodec): raw figures,
/// so that every derived one (unallocated, ratios, whether the metadata can grow) is
/// recomputed exactly. Both keys are optional: a snapshot written before they existed reads
/// as one without them.
enum SpaceDetailsCodec {
    typealias Failure = SnapshotCodec.Failure

    static func encode(_ btrfs: BtrfsAllocation) -> String {
        var json = JSONObjectWriter()
        json.add("device_bytes", btrfs.deviceBytes)
        json.addRaw("data", encode(btrfs.data))
        json.addRaw("metadata", encode(btrfs.metadata))
        json.addRaw("system", encode(btrfs.system))
        json.add("global_reserve_bytes", btrfs.globalReserveBytes)
        json.add("metadata_chunk_disk_bytes", btrfs.metadataChunkDiskBytes)
        json.add("metadata_state", btrfs.metadataLevel.rawValue)
        json.add("mixed", btrfs.isMixed)
        return json.finish()
    }

    private static func encode(_ chunks: BtrfsAllocation.Chunks) -> String {
        var json = JSONObjectWriter()
        json.add("total_bytes", chunks.totalBytes)
        json.add("used_bytes", chunks.usedBytes)
        json.add("disk_total_bytes", chunks.diskTotalBytes)
        json.addRaw("profiles", "[" + chunks.profiles.map(JSONObjectWriter.quoted).joined(separator: ",") + "]")
        return json.finish()
    }

    static func encode(_ fill: FastFill) -> String {
        var json = JSONObjectWriter()
        json.add("bytes_per_second", fill.bytesPerSecond)
        json.add("seconds_to_full", Int(fill.secondsToFull))
        json.add("sustained_seconds", Int(fill.sustainedSeconds))
        return json.finish()
    }

    static func encode(_ quota: Quota) -> String {
        var json = JSONObjectWriter()
        json.add("kind", quota.kind.rawValue)
        json.add("used_bytes", quota.usedBytes)
        json.add("limit_bytes", quota.limitBytes)
        return json.finish()
    }

    static func decodeQuota(_ value: JSONValue) throws(Failure) -> Quota {
        guard case .object = value else { throw .invalid("quota", reason: "is not an object") }
        guard let name = value["kind"]?.stringValue, let kind = Quota.Kind(rawValue: name) else {
            throw .invalid("quota.kind", reason: "is not one of " + Quota.Kind.allCases.map { $0.rawValue }.joined(separator: ", "))
        }
        guard let used = value["used_bytes"]?.uint64Value else { throw .invalid("quota.used_bytes", reason: "is not a non-negative integer") }
        guard let limit = value["limit_bytes"]?.uint64Value, limit > 0 else { throw .invalid("quota.limit_bytes", reason: "is not a positive integer") }
        return Quota(kind: kind, usedBytes: used, limitBytes: limit)
    }

    static func decodeBtrfs(_ value: JSONValue) throws(Failure) -> BtrfsAllocation {
        guard case .object = value else { throw .invalid("btrfs", reason: "is not an object") }
        func count(_ key: String, in object: JSONValue, at path: String) throws(Failure) -> UInt64 {
            guard let member = object[key] else { throw .missing("\(path).\(key)") }
            guard let number = member.uint64Value else { throw .invalid("\(path).\(key)", reason: "is not a non-negative integer") }
            return number
        }
        func chunks(_ key: String) throws(Failure) -> BtrfsAllocation.Chunks {
            guard let object = value[key] else { throw .missing("btrfs.\(key)") }
            guard case .object = object else { throw .invalid("btrfs.\(key)", reason: "is not an object") }
            guard case .array(let items)? = object["profiles"], items.count <= BtrfsAllocationParser.profileCopies.count else {
                throw .invalid("btrfs.\(key).profiles", reason: "is not a list of btrfs profiles")
            }
            var profiles: [String] = []
            for item in items {
                guard let name = item.stringValue, BtrfsAllocationParser.profileCopies[name] != nil else {
                    throw .invalid("btrfs.\(key).profiles", reason: "names a profile btrfs does not have")
                }
                profiles.append(name)
            }
            return BtrfsAllocation.Chunks(totalBytes: try count("total_bytes", in: object, at: "btrfs.\(key)"),
                                          usedBytes: try count("used_bytes", in: object, at: "btrfs.\(key)"),
                                          diskTotalBytes: try count("disk_total_bytes", in: object, at: "btrfs.\(key)"), profiles: profiles)
        }
        guard let levelText = value["metadata_state"]?.stringValue, let level = BtrfsMetadataLevel(rawValue: levelText) else {
            throw .invalid("btrfs.metadata_state", reason: "is not ok, low or full")
        }
        guard let mixed = value["mixed"]?.boolValue else { throw .invalid("btrfs.mixed", reason: "is not true or false") }
        let deviceBytes = try count("device_bytes", in: value, at: "btrfs")
        guard deviceBytes > 0 else { throw .invalid("btrfs.device_bytes", reason: "is 0") }
        var allocation = BtrfsAllocation(
            deviceBytes: deviceBytes, data: try chunks("data"), metadata: try chunks("metadata"), system: try chunks("system"),
            globalReserveBytes: try count("global_reserve_bytes", in: value, at: "btrfs"),
            metadataChunkDiskBytes: try count("metadata_chunk_disk_bytes", in: value, at: "btrfs"), metadataLevel: level)
        allocation.isMixed = mixed
        return allocation
    }

    static func decodeFastFill(_ value: JSONValue) throws(Failure) -> FastFill {
        guard case .object = value else { throw .invalid("fast_fill", reason: "is not an object") }
        func count(_ key: String) throws(Failure) -> UInt64 {
            guard let number = value[key]?.uint64Value else { throw .invalid("fast_fill.\(key)", reason: "is not a non-negative integer") }
            return number
        }
        let seconds = try count("seconds_to_full"), sustained = try count("sustained_seconds")
        guard seconds <= UInt64(Int64.max), sustained <= UInt64(Int64.max) else {
            throw .invalid("fast_fill.seconds_to_full", reason: "is out of range")
        }
        return FastFill(bytesPerSecond: try count("bytes_per_second"), secondsToFull: Int64(seconds), sustainedSeconds: Int64(sustained))
    }
}
