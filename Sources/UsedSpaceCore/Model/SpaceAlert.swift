/// Something about a filesystem's space that df's numbers do not show: a fill caught in the
/// act, or a btrfs filesystem whose metadata cannot grow. It raises a bar block's level,
/// marks the status line and sends a desktop notification. Filesystem-neutral on purpose:
/// another filesystem with space df cannot see (ZFS's pool, whose slop space and
/// fragmentation fail writes early) would add a kind and a producer here, and everything
/// that shows alerts would show it.
public struct SpaceAlert: Equatable, Sendable {
    public enum Kind: String, Equatable, Hashable, Sendable, CaseIterable {
        case fastFill = "fast-fill"
        case btrfsMetadata = "btrfs-metadata"
    }

    public var kind: Kind
    public var severity: Severity
    /// A few words for a status line or a bar: "filling fast", "btrfs metadata full".
    public var mark: String
    /// One line for the details: what is happening.
    public var detail: String
    /// A desktop notification's summary and body (the place is the mount point).
    public var summary: String
    public var body: String
}

extension Snapshot {
    /// The alerts of this snapshot, the most severe first: a fast fill on a fresh snapshot
    /// (critical when full within 10 minutes, else a warning), and a btrfs metadata level
    /// other than ok (low: warning, full: critical).
    public var spaceAlerts: [SpaceAlert] {
        guard stats != nil else { return [] }
        let place = ControlCharacters.replaced(in: mountPoint ?? path)
        var alerts: [SpaceAlert] = []
        if let fill = fastFill, state == .fresh {
            alerts.append(SpaceAlert(
                kind: .fastFill, severity: fill.secondsToFull <= 600 ? .critical : .warning, mark: "filling fast",
                detail: fill.description, summary: "Disk filling fast on \(place)",
                body: "Space is going at \(ByteCountFormat.file(fill.bytesPerSecond))/s (seen for \(DurationParser.describe(microseconds: UInt64(fill.sustainedSeconds) * 1_000_000))): "
                    + "\(TimeToFull.describe(lowerSeconds: fill.secondsToFull, upperSeconds: fill.secondsToFull)) at this rate, "
                    + "with \(ByteCountFormat.file(limitingStats?.freeBytes ?? 0)) free" + (quota.map { " under your \($0.kind.description)." } ?? ".")))
        }
        if let btrfs, btrfs.metadataLevel != .ok {
            let full = btrfs.metadataLevel == .full
            let left = btrfs.metadata.totalBytes == 0 ? "" : " (\(PercentText.oneDecimal(Fraction(numerator: btrfs.metadataAvailableBytes, denominator: btrfs.metadata.totalBytes), padded: false))% left)"
            alerts.append(SpaceAlert(
                kind: .btrfsMetadata, severity: full ? .critical : .warning, mark: full ? "btrfs metadata full" : "btrfs metadata low",
                detail: "btrfs metadata cannot grow (\(ByteCountFormat.file(btrfs.unallocatedBytes)) unallocated) and is "
                    + (full ? "nearly full" : "running low") + left + ": writes fail with ENOSPC once it is full, whatever df shows",
                summary: "btrfs metadata \(full ? "nearly full" : "running low") on \(place)",
                body: "The metadata cannot grow (only \(ByteCountFormat.file(btrfs.unallocatedBytes)) unallocated) and has "
                    + "\(ByteCountFormat.file(btrfs.metadataAvailableBytes))\(left) left: writes will fail with \u{201C}No space left on device\u{201D} "
                    + "although \(ByteCountFormat.file(stats?.freeBytes ?? 0)) are free. To return unused data chunks to the unallocated space, as root: "
                    + "btrfs balance start -dusage=50 \(place)"))
        }
        return alerts.sorted { $0.severity > $1.severity }
    }

    /// The time to full to show where one figure is expected (JSON `time_to_full`, the
    /// Prometheus gauge): the slow estimate, or the fast fill when the slow estimate has
    /// nothing to say or says later than the fill.
    public var shownTimeToFull: TimeToFull? {
        guard let fill = fastFill, state == .fresh else { return timeToFull }
        guard let timeToFull, timeToFull.lowerSeconds <= fill.secondsToFull else { return fill.timeToFull }
        return timeToFull
    }
}

extension SpaceAlert {
    /// The alert with who is filling the filesystem said at the end of its notification's
    /// body: "… Writing: python3 (pid 4242) writing ~/Downloads/x.iso, 50 MB/s." (the words
    /// of the details' "Writing:" lines), or "Writing: another user or the system.".
    public func naming(_ writers: FillWriters) -> SpaceAlert {
        var named = self
        named.body += " Writing: " + SpaceDetailsText.writerTexts(writers).joined(separator: "; ") + "."
        return named
    }
}
