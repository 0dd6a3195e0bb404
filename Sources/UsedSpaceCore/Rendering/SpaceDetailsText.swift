/// The detail lines beyond df's numbers, for `--details`: a fast fill, and how a btrfs
/// filesystem has allocated its devices (what `btrfs filesystem usage` shows, in brief).
public enum SpaceDetailsText {
    /// `Quota:\t50.1 MB used of 52.43 MB (btrfs qgroup)` when a quota binds,
    /// `Filling:\t120 MB/s — full in about 6 minutes`, then for btrfs:
    /// `Unallocated:\t12.3 GB of 500 GB`, `Data:\t…`, `Metadata:\t… (DUP), cannot grow`.
    public static func detailLines(_ snapshot: Snapshot) -> [String] {
        var lines: [String] = []
        if let quota = snapshot.quota { lines.append("Quota:\t" + quotaText(quota)) }
        if let fill = snapshot.fastFill, snapshot.state == .fresh {
            lines.append("Filling:\t\(ByteCountFormat.file(fill.bytesPerSecond))/s \u{2014} "
                         + TimeToFull.describe(lowerSeconds: fill.secondsToFull, upperSeconds: fill.secondsToFull))
            lines += writerLines(snapshot).map { "Writing:\t" + $0 }
        }
        if let btrfs = snapshot.btrfs {
            lines.append("Unallocated:\t\(ByteCountFormat.file(btrfs.unallocatedBytes)) of \(ByteCountFormat.file(btrfs.deviceBytes))")
            if btrfs.isMixed {
                lines.append("Data+Metadata:\t\(chunks(btrfs.data)) (mixed)")
            } else {
                lines.append("Data:\t\(chunks(btrfs.data))")
                lines.append("Metadata:\t\(chunks(btrfs.metadata))" + metadataState(btrfs))
            }
        }
        return lines
    }

    /// Who is filling it, a line each ("python3 (pid 4242) writing ~/Downloads/x.iso, 120
    /// MB/s"), "another user or the system" or "no writer seen"; nothing when nobody looked.
    public static func writerLines(_ snapshot: Snapshot) -> [String] {
        guard let found = snapshot.fillWriters, snapshot.fastFill != nil, snapshot.state == .fresh else { return [] }
        return writerTexts(found)
    }

    /// The writers found, one text each; when none is the user's, "another user or the
    /// system" if the filesystem grew while they were looked for, else "no writer seen".
    /// Also the notification's words (SpaceAlert.naming) and, joined, D-Bus's and JSON's.
    public static func writerTexts(_ found: FillWriters) -> [String] {
        guard !found.writers.isEmpty else { return [found.sawGrowth ? FillWriter.nobodyOfYours : FillWriter.noneSeen] }
        return found.writers.map { $0.description(home: found.home) + ", \(ByteCountFormat.file($0.bytesPerSecond))/s" }
    }

    /// The writers in one line: "python3 (pid 4242) writing ~/x.iso, 50 MB/s; …", as JSON's
    /// `fast_fill.writing` and D-Bus's `FastFillWriting` say it; empty when nobody looked.
    public static func writing(_ snapshot: Snapshot) -> String {
        writerLines(snapshot).joined(separator: "; ")
    }

    /// "50.1 MB used of 52.43 MB (btrfs qgroup)".
    public static func quotaText(_ quota: Quota) -> String {
        "\(ByteCountFormat.file(quota.usedBytes)) used of \(ByteCountFormat.file(quota.limitBytes)) (\(quota.kind.description))"
    }

    /// "310.2 GB used of 320 GB (single)".
    static func chunks(_ chunks: BtrfsAllocation.Chunks) -> String {
        let profiles = chunks.profiles.isEmpty ? "" : " (" + chunks.profiles.map(profileName).joined(separator: ", ") + ")"
        return "\(ByteCountFormat.file(chunks.usedBytes)) used of \(ByteCountFormat.file(chunks.totalBytes))" + profiles
    }

    static func metadataState(_ btrfs: BtrfsAllocation) -> String {
        switch btrfs.metadataLevel {
        case .ok: return btrfs.metadataCanGrow ? "" : ", cannot grow"
        case .low: return ", cannot grow, running low"
        case .full: return ", cannot grow, nearly full"
        }
    }

    /// As btrfs-progs writes profiles: "single", "DUP", "RAID1".
    static func profileName(_ name: String) -> String {
        name == "single" ? name : name.uppercased()
    }

    /// "  ⚠ filling fast, btrfs metadata full" after a status line; empty without alerts.
    public static func marks(_ snapshot: Snapshot) -> String {
        let alerts = snapshot.spaceAlerts
        return alerts.isEmpty ? "" : "  \u{26A0} " + alerts.map { $0.mark }.joined(separator: ", ")
    }
}
