/// The plain-text views: the bar with its percentage, and the details beneath it, with the
/// templates of `options` where the user set them.
public enum TextRenderer {
    // Without templates of the user's, the lines are written directly: the same text as
    // the templates "{bar} {percent:>5}%" and "Used:\t{used}"…, without parsing them at
    // every start of `status`.

    /// `[███████░░░░░░░░░░░░░]  35.2%`, with a stale mark when the numbers are not current,
    /// or `failed: REASON` when there are no numbers. Empty when a template hides it.
    public static func statusLine(_ snapshot: Snapshot, options: BarOptions = BarOptions(), severity: Severity = .normal) -> String {
        let reason = snapshot.error.map(ControlCharacters.replaced)
        let cells = options.barWidth ?? ProgressBar.defaultWidth
        let context = options.templateContext(snapshot, barCells: cells)
        let templates = options.templates
        // Under a quota that binds, how full is the quota's (marked): it is what the user hits.
        guard let fraction = snapshot.limitingStats?.usedFraction else {
            if let template = templates.forFailure(notMounted: snapshot.notMounted) { return template.text(context) }
            return "failed: \(reason ?? "no numbers")"
        }
        // A template says {ro} where the user wants it; the default line says it at the end.
        let own = templates.forLevel(severity)?.text(context)
            ?? (cells > 0 ? ProgressBar.render(fraction, width: cells, glyphs: options.glyphs) + " " : "") + PercentText.oneDecimal(fraction) + "%"
            + (snapshot.stats?.readOnly == true ? "  (read-only)" : "") + (snapshot.quota != nil ? "  (quota)" : "")
        let marks = SpaceDetailsText.marks(snapshot)
        if snapshot.state == .stale {
            if let stale = templates.stale { return stale.text(context) + marks }
            return own + (reason.map { "  (stale: \($0))" } ?? "  (stale)") + marks
        }
        // A fast fill or btrfs metadata that cannot grow is never hidden below a limit.
        if let limit = options.hideBelow, severity == .normal, marks.isEmpty,
           UInt128(fraction.numerator) * UInt128(limit.denominator) < UInt128(limit.numerator) * UInt128(fraction.denominator) {
            return templates.below?.text(context) ?? ""
        }
        return own + marks
    }

    /// `Used:\t…`, `Free:\t…`, `Total:\t…` in file-style byte counts (or the `unit`), then
    /// `Inodes:\t…`, `Mounted on:\t- (not in the mount table)` when the mount is unknown
    /// (Snapshot.mountUnknown), and `Mounted:\tread-only` on a read-only filesystem. Free is what the user can still write (df's Avail), so with reserved
    /// blocks Used + Free < Total. With a significant trend, `Trend:\tfull in 3–5 days`
    /// follows; then a fast fill and a btrfs filesystem's allocation (SpaceDetailsText).
    /// `template-details` replaces them all.
    public static func detailLines(_ snapshot: Snapshot, options: BarOptions = BarOptions()) -> [String] {
        guard let stats = snapshot.stats else { return [] }
        if let details = options.templates.details {
            return BarTemplates.lines(details, options.templateContext(snapshot, barCells: options.barWidth ?? ProgressBar.defaultWidth))
        }
        let unit = options.unit
        return [
            "Used:\t" + unit.format(stats.usedBytes),
            "Free:\t" + unit.format(stats.freeBytes),
            "Total:\t" + unit.format(stats.totalBytes),
            "Inodes:\t" + inodes(stats),
        ] + (snapshot.mountUnknown ? ["Mounted on:\t" + Snapshot.unknownMountText + " (not in the mount table)"] : [])
            + (stats.readOnly ? ["Mounted:\tread-only"] : []) + (snapshot.timeToFull.map { ["Trend:\t" + $0.description] } ?? []) + SpaceDetailsText.detailLines(snapshot)
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
    public static func render(_ snapshot: Snapshot, details: Bool, options: BarOptions = BarOptions()) -> String {
        var lines = [statusLine(snapshot, options: options)]
        if details { lines += detailLines(snapshot, options: options) }
        return lines.map { $0 + "\n" }.joined()
    }
}
