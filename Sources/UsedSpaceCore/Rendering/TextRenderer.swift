/// The plain-text views: the bar with its percentage, and the details beneath it.
public enum TextRenderer {
    /// `[███████░░░░░░░░░░░░░]  35.2%`, with a stale mark when the numbers are not current,
    /// or `failed: REASON` when there are no numbers.
    public static func statusLine(_ snapshot: Snapshot) -> String {
        let reason = snapshot.error.map(ControlCharacters.replaced)
        guard let fraction = snapshot.usedFraction else {
            return "failed: \(reason ?? "no numbers")"
        }
        var line = ProgressBar.render(fraction) + " " + PercentText.oneDecimal(fraction) + "%"
        if snapshot.state == .stale {
            line += reason.map { "  (stale: \($0))" } ?? "  (stale)"
        }
        return line + SpaceDetailsText.marks(snapshot)
    }

    /// `Used:\t…`, `Free:\t…`, `Total:\t…` in file-style byte counts, then `Inodes:\t…`. Free is
    /// what the user can still write (df's Avail), so with reserved blocks Used + Free < Total.
    /// With a significant trend, `Trend:\tfull in 3–5 days` follows; then a fast fill and a
    /// btrfs filesystem's allocation (SpaceDetailsText).
    public static func detailLines(_ snapshot: Snapshot) -> [String] {
        guard let stats = snapshot.stats else { return [] }
        return [
            "Used:\t" + ByteCountFormat.file(stats.usedBytes),
            "Free:\t" + ByteCountFormat.file(stats.freeBytes),
            "Total:\t" + ByteCountFormat.file(stats.totalBytes),
            "Inodes:\t" + inodes(stats),
        ] + (snapshot.timeToFull.map { ["Trend:\t" + $0.description] } ?? []) + SpaceDetailsText.detailLines(snapshot)
    }

    /// "405,580 used, 16,371,636 free", or "n/a" where the filesystem has no inode table
    /// (btrfs reports 0 of them, which is not "100 % used").
    static func inodes(_ stats: FilesystemStats) -> String {
        guard let used = stats.usedInodes else { return "n/a" }
        return grouped(used) + " used, " + grouped(stats.freeInodes) + " free"
    }

    static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return text
    }

    /// The status line, then the details when asked for, one per line, each ending in "\n".
    public static func render(_ snapshot: Snapshot, details: Bool) -> String {
        var lines = [statusLine(snapshot)]
        if details { lines += detailLines(snapshot) }
        return lines.map { $0 + "\n" }.joined()
    }
}
