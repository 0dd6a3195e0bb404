/// What a status bar shows for one snapshot, before it is written in a bar's format.
public struct BarBlock: Equatable, Sendable {
    public var fullText: String
    public var shortText: String
    /// The details (Used, Free, Total), one per line: a tooltip, or the expanded text.
    public var details: [String]
    public var severity: Severity
    public var color: String?
    public var urgent: Bool
    /// Hidden while nothing is noteworthy (`hideBelow`).
    public var hidden: Bool
    /// The integer used percent as df shows it, for bars that draw their own gauge.
    public var percentage: Int?
    public var stale: Bool
    public var failed: Bool
    /// Identifies the block in click events (i3bar `instance`): the watched path.
    public var instance: String

    /// `expanded` is the widget's tap-to-expand: the details join the bar's text.
    public init(_ snapshot: Snapshot, options: BarOptions, severity: Severity, expanded: Bool) {
        let label = ControlCharacters.replaced(in: options.label)
        instance = snapshot.path
        // What df cannot show (a fast fill, btrfs metadata that cannot grow) raises the level.
        let alerts = snapshot.spaceAlerts
        let severity = max(severity, alerts.first?.severity ?? .normal)
        let alertMark = alerts.isEmpty ? "" : " \u{26A0} " + alerts.map(\.mark).joined(separator: ", ")
        self.severity = severity
        failed = snapshot.state == .failed || snapshot.stats == nil
        stale = snapshot.state == .stale
        percentage = snapshot.stats?.usedPercent
        // The daemon is not running the configuration as written: the bar is where the user
        // looks, so the bar says so (the details say why).
        let problem = snapshot.configurationProblem.map(ControlCharacters.replaced)
        let configurationMark = problem == nil ? "" : " \u{26A0} config"
        let configurationDetails = problem.map { ["Configuration refused: " + $0] } ?? []
        if let stats = snapshot.stats, let fraction = stats.usedFraction {
            let percent = PercentText.oneDecimal(fraction, padded: false) + "%"
            let bar = options.barWidth > 0 ? ProgressBar.render(fraction, width: options.barWidth) + " " : ""
            let mark = stale ? " (stale)" : ""
            details = [
                "Used: " + ByteCountFormat.file(stats.usedBytes),
                "Free: " + ByteCountFormat.file(stats.freeBytes),
                "Total: " + ByteCountFormat.file(stats.totalBytes),
            ] + (snapshot.timeToFull.map { [$0.description] } ?? []) + alerts.map(\.detail) + configurationDetails
            fullText = label + bar + percent + mark + alertMark + configurationMark
            if expanded { fullText += "  " + details.joined(separator: " · ") }
            shortText = label + percent + (stale ? "?" : "") + (problem == nil && alerts.isEmpty ? "" : " \u{26A0}")
            // A warning, or numbers in doubt, are always noteworthy.
            hidden = (options.hideBelow.map { Self.isBelow(fraction, $0) } ?? false) && severity == .normal && !stale && problem == nil
        } else {
            let reason = ControlCharacters.replaced(in: snapshot.error ?? "no numbers")
            details = [reason] + configurationDetails
            fullText = label + "disk: failed" + configurationMark + (expanded ? " (" + reason + ")" : "")
            shortText = label + "failed"
            hidden = false
        }
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
    /// details of each under its mount point.
    public static func combined(_ blocks: [BarBlock], mountPoints: [String]) -> BarBlock? {
        guard var result = blocks.first else { return nil }
        guard blocks.count > 1 else { return result }
        let visible = blocks.filter { !$0.hidden }
        result.fullText = visible.map(\.fullText).joined(separator: "  ")
        result.shortText = visible.map(\.shortText).joined(separator: " ")
        result.details = zip(blocks, mountPoints).flatMap { block, mountPoint in [mountPoint + ":"] + block.details.map { "  " + $0 } }
        func rank(_ block: BarBlock) -> Int { block.failed ? 3 : block.severity.rawValue }
        let worst = blocks.max { rank($0) < rank($1) }!
        result.severity = worst.severity
        result.color = worst.color
        result.urgent = blocks.contains(where: \.urgent)
        result.hidden = visible.isEmpty
        result.percentage = blocks.compactMap(\.percentage).max()
        result.stale = blocks.contains(where: \.stale)
        result.failed = blocks.contains(where: \.failed)
        result.instance = ""
        return result
    }
}
