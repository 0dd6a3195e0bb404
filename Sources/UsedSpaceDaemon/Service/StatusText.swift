import UsedSpaceCore

/// The one-line STATUS= shown by `systemctl --user status usedspace`, e.g. "36% used of
/// /home" (df's Use%), led by the configuration problem when there is one. It changes only
/// when what it says changes (no seq, no decimals: a disk in use publishes every second,
/// and each change is a message that wakes the service manager).
enum StatusText {
    /// Each filesystem by its mount point, or by its path where two watched paths share one.
    static func describe(_ snapshots: [Snapshot?], configurationProblem: String? = nil) -> String {
        let places = snapshots.map { $0.map { $0.mountPoint ?? $0.path } }
        let parts = snapshots.map { snapshot -> String in
            guard let snapshot else { return "sampling…" }
            let mountPoint = snapshot.mountPoint ?? snapshot.path
            let shared = places.filter { $0 == mountPoint }.count > 1
            let place = ControlCharacters.replaced(in: shared ? snapshot.path : mountPoint)
            switch snapshot.state {
            case .failed:
                return "failed: \(ControlCharacters.replaced(in: snapshot.error ?? "unknown error"))"
            case .fresh, .stale:
                let percent = snapshot.stats?.usedPercent.map { "\($0)%" } ?? "?"
                let stale = snapshot.state == .stale ? " (stale)" : ""
                return "\(percent) used of \(place)\(stale)" + SpaceDetailsText.marks(snapshot)
            }
        }
        let status = parts.joined(separator: "; ")
        guard let configurationProblem else { return status }
        return "configuration refused: \(ControlCharacters.replaced(in: configurationProblem)) | \(status)"
    }

    /// Whether `describe` says of `new` what it said of `old` (one watch's snapshot before
    /// and after a publish, the others the same): the fields it reads are the same. A disk in
    /// use publishes every second and moves df's Use% every few minutes: the text is built
    /// only then.
    static func saysTheSame(_ old: Snapshot?, _ new: Snapshot) -> Bool {
        guard let old else { return false }
        return old.path == new.path && old.mountPoint == new.mountPoint && old.state == new.state && old.error == new.error
            && old.stats?.usedPercent == new.stats?.usedPercent && SpaceDetailsText.marks(old) == SpaceDetailsText.marks(new)
    }
}

/// What the journal says a publish published: "/home (ext4): 35.2% used, 307.80 GB free of
/// 500 GB (seq 42)", or the reason there are no numbers.
enum PublishSummary {
    /// Whether a publish is worth a line in the journal at the info level: the first, or
    /// one that changes df's Use%, the state or the marks. Others are debug (--verbose).
    static func isWorthALine(_ snapshot: Snapshot, after previous: Snapshot?) -> Bool {
        guard let previous else { return true }
        return previous.state != snapshot.state || previous.stats?.usedPercent != snapshot.stats?.usedPercent
            || SpaceDetailsText.marks(previous) != SpaceDetailsText.marks(snapshot) || previous.stats?.readOnly != snapshot.stats?.readOnly
    }

    static func describe(_ snapshot: Snapshot) -> String {
        let place = ControlCharacters.replaced(in: snapshot.mountPoint ?? snapshot.path)
        let type = (snapshot.fileSystemType ?? (snapshot.mountUnknown ? Snapshot.unknownMountText : nil))
            .map { " (\(ControlCharacters.replaced(in: $0)))" } ?? ""
        guard let stats = snapshot.stats, let fraction = stats.usedFraction else {
            return "\(ControlCharacters.replaced(in: snapshot.error ?? "no numbers")) (seq \(snapshot.seq))"
        }
        var text = "\(place)\(type): \(PercentText.oneDecimal(fraction, padded: false))% used, "
            + "\(ByteCountFormat.file(stats.freeBytes)) free of \(ByteCountFormat.file(stats.totalBytes)) (seq \(snapshot.seq))"
        if let estimate = snapshot.timeToFull { text += ", \(estimate)" }
        if let fill = snapshot.fastFill { text += ", \(fill)" }
        if let btrfs = snapshot.btrfs { text += ", btrfs: \(ByteCountFormat.file(btrfs.unallocatedBytes)) unallocated, metadata \(btrfs.metadataLevel.rawValue)" }
        if snapshot.state == .stale, let reason = snapshot.error { text += "; \(ControlCharacters.replaced(in: reason))" }
        return text
    }
}
