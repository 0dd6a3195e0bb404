/// What a status bar shows for one snapshot, before it is written in a bar's format.
public struct BarBlock: Equatable, Sendable {
    public var fullText: String
    public var shortText: String
    /// The details (Used, Free, Total), one per line: a tooltip, or the expanded text.
    public var details: [String]
    public var severity: Severity
    public var color: String?
    public var urgent: Bool
    /// Hidden: its text is empty (`hide-below`, an empty template, `hidden = yes`).
    public var hidden: Bool
    /// The integer used percent as df shows it, for bars that draw their own gauge.
    public var percentage: Int?
    public var stale: Bool
    public var failed: Bool
    /// Identifies the block in click events (i3bar `instance`): the watched path.
    public var instance: String

    // Without templates of the user's, the texts are written directly: the same as the
    // templates "{label}{bar} {percent}%" and "Used: {used}"…, without parsing them.

    /// `severity` is the level the view shows (FilesystemLevel: raised already by what df
    /// cannot show). `expanded` is the widget's tap-to-expand: the details join the bar's text.
    public init(_ snapshot: Snapshot, options: BarOptions, severity: Severity, expanded: Bool) {
        let label = ControlCharacters.replaced(in: options.label)
        let barCells = options.barWidth ?? BarOptions.defaultBarWidth
        let context = options.templateContext(snapshot, barCells: barCells)
        let templates = options.templates
        instance = snapshot.path
        let alerts = snapshot.spaceAlerts
        let alertMark = alerts.isEmpty ? "" : " \u{26A0} " + alerts.map { $0.mark }.joined(separator: ", ")
        self.severity = severity
        failed = snapshot.state == .failed || snapshot.stats == nil
        stale = snapshot.state == .stale
        percentage = snapshot.limitingStats?.usedPercent
        // The daemon is not running the configuration as written: the bar is where the user
        // looks, so the bar says so (the details say why).
        let problem = snapshot.configurationProblem.map(ControlCharacters.replaced)
        let configurationMark = problem == nil ? "" : " \u{26A0} config"
        let configurationDetails = problem.map { ["Configuration refused: " + $0] } ?? []
        // Under a quota that binds, the bar and its percentage are the quota's (marked); the
        // details keep df's numbers and add the quota's.
        let quotaDetails = snapshot.quota.map { ["Quota: " + SpaceDetailsText.quotaText($0)] } ?? []
        let quotaMark = snapshot.quota == nil ? "" : " (quota)"
        let writerDetails = SpaceDetailsText.writerLines(snapshot).map { "Writing: " + $0 }
        if let stats = snapshot.stats, let fraction = snapshot.limitingStats?.usedFraction {
            // Typed parts, then one `+` of them: as a single expression, Swift 6.2's type
            // checker gives up on the chain ("unable to type-check … in reasonable time").
            let extraDetails = alerts.map { $0.detail } + writerDetails + configurationDetails
            if let lines = templates.details {
                details = BarTemplates.lines(lines, context) + extraDetails
            } else {
                let numbers: [String] = ["Used: " + options.unit.format(stats.usedBytes), "Free: " + options.unit.format(stats.freeBytes),
                                         "Total: " + options.unit.format(stats.totalBytes)]
                let readOnly: [String] = stats.readOnly ? ["Read-only"] : []
                let trend: [String] = snapshot.timeToFull.map { [$0.description] } ?? []
                details = numbers + readOnly + quotaDetails + trend + extraDetails
            }
            let own = templates.forLevel(severity)?.text(context)
                ?? label + (barCells > 0 ? ProgressBar.render(fraction, width: barCells, glyphs: options.glyphs) + " " : "")
                + PercentText.oneDecimal(fraction, padded: false) + "%" + quotaMark
            // A warning, or numbers in doubt, are always noteworthy.
            let below = (options.hideBelow.map { Self.isBelow(fraction, $0) } ?? false) && severity == .normal && !stale && problem == nil
            if stale {
                fullText = templates.stale.map { $0.text(context) } ?? own + " (stale)"
            } else if below {
                fullText = templates.below.map { $0.text(context) } ?? ""
            } else {
                fullText = own
            }
            let warningMark = problem == nil && alerts.isEmpty ? "" : " \u{26A0}"
            if templates.setsText {
                shortText = fullText + warningMark
            } else {
                shortText = label + PercentText.oneDecimal(fraction, padded: false) + "%" + (stale ? "?" : "") + warningMark
            }
            if !fullText.isEmpty { fullText += alertMark }
            fullText += configurationMark
            if expanded && !fullText.isEmpty { fullText += "  " + details.joined(separator: " · ") }
        } else {
            let reason = ControlCharacters.replaced(in: snapshot.error ?? "no numbers")
            details = [reason] + configurationDetails
            if let template = templates.forFailure(notMounted: snapshot.notMounted) {
                fullText = template.text(context)
                shortText = fullText
            } else {
                fullText = label + "disk: failed"
                shortText = label + "failed"
            }
            fullText += configurationMark
            if expanded && !fullText.isEmpty { fullText += " (" + reason + ")" }
        }
        hidden = fullText.isEmpty || (options.hidden && problem == nil)
        if hidden { shortText = "" }
        var shownSeverity: Severity = failed ? .critical : severity
        if problem != nil && shownSeverity == .normal { shownSeverity = .warning }
        color = options.color(for: shownSeverity)
        urgent = shownSeverity == .critical
    }

    private static func isBelow(_ value: Fraction, _ limit: Fraction) -> Bool {
        UInt128(value.numerator) * UInt128(limit.denominator) < UInt128(limit.numerator) * UInt128(value.denominator)
    }
}

extension BarBlock {
    /// Several filesystems in one block, for bars that take one text per module (i3blocks,
    /// polybar, waybar): the visible texts side by side, the most severe level's colour, the
    /// details of each under a heading: its mount point, or its path where two share one.
    public static func combined(_ blocks: [BarBlock], headings: [String]) -> BarBlock? {
        guard var result = blocks.first else { return nil }
        guard blocks.count > 1 else { return result }
        let visible = blocks.filter { !$0.hidden }
        result.fullText = visible.map { $0.fullText }.joined(separator: "  ")
        result.shortText = visible.map { $0.shortText }.joined(separator: " ")
        result.details = zip(blocks, headings).flatMap { block, heading in [heading + ":"] + block.details.map { "  " + $0 } }
        func rank(_ block: BarBlock) -> Int { block.failed ? 3 : block.severity.rawValue }
        let worst = visible.max { rank($0) < rank($1) } ?? blocks[0]
        result.severity = worst.severity
        result.color = worst.color
        result.urgent = visible.contains(where: { $0.urgent })
        result.hidden = visible.isEmpty
        result.percentage = visible.compactMap { $0.percentage }.max()
        result.stale = visible.contains(where: { $0.stale })
        result.failed = visible.contains(where: { $0.failed })
        result.instance = ""
        return result
    }

    /// The heading of each snapshot's details: its mount point, or its path where another
    /// of them is on the same mount point (two watched paths on one filesystem).
    public static func headings(_ snapshots: [Snapshot]) -> [String] {
        let places = snapshots.map { $0.mountPoint ?? $0.path }
        return zip(snapshots, places).map { snapshot, place in
            ControlCharacters.replaced(in: places.filter { $0 == place }.count > 1 ? snapshot.path : place)
        }
    }
}
