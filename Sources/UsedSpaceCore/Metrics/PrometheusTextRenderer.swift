/// The snapshots in Prometheus's text exposition format (version 0.0.4), for node_exporter's
/// textfile collector: one gauge family per figure, a series per watched path.
public enum PrometheusTextRenderer {
    struct Family {
        var name: String
        var help: String
        var series: [(labels: String, value: String)] = []
    }

    public static func render(_ snapshots: [Snapshot]) -> String {
        var families: [Family] = [
            Family(name: "usedspace_up", help: "1 when the last sample succeeded, 0 when it failed."),
            Family(name: "usedspace_stale", help: "1 when the numbers could not be confirmed by the last sample (a filesystem that does not answer), else 0."),
            Family(name: "usedspace_size_bytes", help: "Size of the filesystem, as df(1) counts it."),
            Family(name: "usedspace_used_bytes", help: "Used bytes, as df(1) counts them."),
            Family(name: "usedspace_avail_bytes", help: "Bytes an unprivileged user can still write (df's Avail)."),
            Family(name: "usedspace_reserved_bytes", help: "Free bytes reserved for root."),
            Family(name: "usedspace_used_ratio", help: "used / (used + avail): df's Use% as a ratio."),
            Family(name: "usedspace_inodes", help: "Inodes by state (used, free), where the filesystem has an inode table."),
            Family(name: "usedspace_time_to_full_seconds", help: "When the filesystem will be full at its current trend, as a range (bound=lower|upper), or at the rate of a fast fill when that is sooner; absent without either."),
            Family(name: "usedspace_snapshot_seq", help: "Sequence number of the published snapshot."),
            Family(name: "usedspace_snapshot_timestamp_seconds", help: "When the numbers were sampled, in seconds since the epoch."),
            Family(name: "usedspace_filesystem_read_only", help: "1 when the filesystem itself is read-only (its superblock, not a read-only view of it), else 0."),
        ]
        func add(_ index: Int, _ labels: String, _ value: String) { families[index].series.append((labels, value)) }
        for snapshot in snapshots {
            let labels = seriesLabels(snapshot)
            add(0, labels, snapshot.state == .failed ? "0" : "1")
            add(1, labels, snapshot.state == .stale ? "1" : "0")
            if let stats = snapshot.stats {
                add(2, labels, String(stats.totalBytes))
                add(3, labels, String(stats.usedBytes))
                add(4, labels, String(stats.freeBytes))
                add(5, labels, String(stats.reservedBytes))
                if let rate = stats.usedRate { add(6, labels, rate.description) }
                if let used = stats.usedInodes {
                    add(7, labels + ",state=\"used\"", String(used))
                    add(7, labels + ",state=\"free\"", String(stats.freeInodes))
                }
            }
            if let estimate = snapshot.shownTimeToFull, snapshot.state == .fresh {
                add(8, labels + ",bound=\"lower\"", String(estimate.lowerSeconds))
                add(8, labels + ",bound=\"upper\"", String(estimate.upperSeconds))
            }
            add(9, labels, String(snapshot.seq))
            add(10, labels, String(snapshot.sampledAt.secondsSinceEpoch))
            if let stats = snapshot.stats { add(11, labels, stats.readOnly ? "1" : "0") }
        }
        families += spaceDetailFamilies(snapshots)
        var text = ""
        for family in families where !family.series.isEmpty {
            text += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) gauge\n"
            for series in family.series { text += "\(family.name){\(series.labels)} \(series.value)\n" }
        }
        return text
    }

    static func seriesLabels(_ snapshot: Snapshot) -> String {
        "path=\(quoted(snapshot.path)),mountpoint=\(quoted(snapshot.mountPoint ?? "")),fstype=\(quoted(snapshot.fileSystemType ?? ""))"
    }

    /// A label value: backslash, double quote and newline escaped, as the format requires.
    static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
