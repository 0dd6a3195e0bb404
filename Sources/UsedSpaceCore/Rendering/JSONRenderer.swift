/// `--format json`: one object per snapshot, on one line, with the keys of the contract
/// (docs/json.md). Numbers a failed snapshot does not have are null. `time_to_full` carries the
/// fast fill when the slow estimate has nothing to say (Snapshot.shownTimeToFull);
/// `fast_fill` and `btrfs` are there only when there is one, `watch_ended` only when true.
/// `read_only` is the filesystem's own state, FilesystemStats.readOnly (null without numbers).
public enum JSONRenderer {
    /// `text`: what a `--template` made of the snapshot, written as the key "text".
    /// `label`: its [bar] or [filesystem] label, as the daemon's D-Bus object says it, for a
    /// widget that cannot read the bus. `level`: the level the view shows (ShownLevel), by
    /// default the one the snapshot carries; `severity` is left out when neither is known.
    public static func render(_ snapshot: Snapshot, text: String? = nil, label: String? = nil, level: Severity? = nil) -> String {
        var json = JSONObjectWriter()
        json.add("path", snapshot.path)
        json.add("mountpoint", snapshot.mountPoint)
        json.add("fstype", snapshot.fileSystemType)
        let stats = snapshot.stats
        json.add("total_bytes", stats?.totalBytes)
        json.add("used_bytes", stats?.usedBytes)
        json.add("free_bytes", stats?.freeBytes)
        json.add("reserved_bytes", stats?.reservedBytes)
        json.add("used_rate", stats?.usedRate)
        json.add("used_percent", stats?.usedPercent)
        json.add("block_size", stats?.blockSize)
        json.add("total_inodes", stats.flatMap { $0.totalInodes > 0 ? $0.totalInodes : nil })
        json.add("used_inodes", stats?.usedInodes)
        json.add("free_inodes", stats.flatMap { $0.totalInodes > 0 ? $0.freeInodes : nil })
        if let stats { json.add("read_only", stats.readOnly) } else { json.addRaw("read_only", "null") }
        if let estimate = snapshot.shownTimeToFull {
            var range = JSONObjectWriter()
            range.add("lower_seconds", Int(estimate.lowerSeconds))
            range.add("upper_seconds", Int(estimate.upperSeconds))
            range.add("text", estimate.description)
            json.addRaw("time_to_full", range.finish())
        } else {
            json.addRaw("time_to_full", "null")
        }
        if let fill = snapshot.fastFill, snapshot.state == .fresh { json.addRaw("fast_fill", SpaceDetailsJSON.fastFill(fill, writers: snapshot.fillWriters)) }
        if let btrfs = snapshot.btrfs { json.addRaw("btrfs", SpaceDetailsJSON.btrfs(btrfs)) }
        if let quota = snapshot.quota { json.addRaw("quota", SpaceDetailsJSON.quota(quota)) }
        json.add("seq", snapshot.seq)
        json.add("sampled_at", snapshot.sampledAt.rfc3339)
        json.add("state", snapshot.state.rawValue)
        json.add("source", snapshot.source.rawValue)
        if let error = snapshot.error { json.add("error", error) }
        if snapshot.watchEnded { json.add("watch_ended", true) }
        if let problem = snapshot.configurationProblem { json.add("config_error", problem) }
        if let text { json.add("text", text) }
        if let label { json.add("label", label) }
        if let level = level ?? snapshot.level { json.add("severity", level.name) }
        return json.finish()
    }
}
