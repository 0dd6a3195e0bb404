/// The JSON objects beyond df's numbers (`--format json`): `fast_fill`, `btrfs` and `quota`, each
/// present only when there is something to say.
public enum SpaceDetailsJSON {
    /// {"bytes_per_second":120000000,"seconds_to_full":360,"sustained_seconds":30,"text":"filling at …"},
    /// and when someone looked who is filling it: "writers" (the user's, [] when none) and
    /// "writing" (SpaceDetailsText.writerTexts, joined).
    public static func fastFill(_ fill: FastFill, writers: FillWriters? = nil) -> String {
        var json = JSONObjectWriter()
        json.add("bytes_per_second", fill.bytesPerSecond)
        json.add("seconds_to_full", Int(fill.secondsToFull))
        json.add("sustained_seconds", Int(fill.sustainedSeconds))
        json.add("text", fill.description)
        if let writers {
            json.addRaw("writers", "[" + writers.writers.map { $0.jsonObject }.joined(separator: ",") + "]")
            json.add("writing", SpaceDetailsText.writerTexts(writers).joined(separator: "; "))
        }
        return json.finish()
    }

    /// {"kind":"btrfs-referenced","used_bytes":…,"limit_bytes":…,"free_bytes":…,"used_percent":100,"text":"…"}:
    /// a quota that binds before the filesystem, with df's rule applied to its figures.
    public static func quota(_ quota: Quota) -> String {
        var json = JSONObjectWriter()
        json.add("kind", quota.kind.rawValue)
        json.add("used_bytes", quota.usedBytes)
        json.add("limit_bytes", quota.limitBytes)
        json.add("free_bytes", quota.availableBytes)
        json.add("used_percent", quota.asFilesystemStats().usedPercent)
        json.add("text", SpaceDetailsText.quotaText(quota))
        return json.finish()
    }

    /// The figures of `btrfs filesystem usage -b`: the devices, what is unallocated, each
    /// kind of chunk with its ratio and profiles, the global reserve, and the metadata's state.
    public static func btrfs(_ btrfs: BtrfsAllocation) -> String {
        var json = JSONObjectWriter()
        json.add("device_bytes", btrfs.deviceBytes)
        json.add("allocated_bytes", btrfs.allocatedBytes)
        json.add("unallocated_bytes", btrfs.unallocatedBytes)
        json.addRaw("data", chunks(btrfs.data))
        json.addRaw("metadata", chunks(btrfs.metadata))
        json.addRaw("system", chunks(btrfs.system))
        json.add("global_reserve_bytes", btrfs.globalReserveBytes)
        json.add("mixed", btrfs.isMixed)
        json.add("metadata_can_grow", btrfs.metadataCanGrow)
        json.add("metadata_state", btrfs.metadataLevel.rawValue)
        return json.finish()
    }

    static func chunks(_ chunks: BtrfsAllocation.Chunks) -> String {
        var json = JSONObjectWriter()
        json.add("total_bytes", chunks.totalBytes)
        json.add("used_bytes", chunks.usedBytes)
        json.add("disk_total_bytes", chunks.diskTotalBytes)
        json.add("ratio", chunks.ratio)
        json.addRaw("profiles", "[" + chunks.profiles.map(JSONObjectWriter.quoted).joined(separator: ",") + "]")
        return json.finish()
    }
}
