import UsedSpaceCore

/// What `status` and `watch` write, in every format, from the same settings: one block per
/// filesystem for i3bar, one combined text for the bars that take one per module, a line
/// (and its details) per filesystem in text.
enum BarOutput {
    struct Item {
        var snapshot: Snapshot
        /// The level shown (ShownLevel); nil when not known (no daemon's level, and the
        /// configuration not read): shown as normal, and left out of JSON.
        var level: Severity?
        var expanded: Bool
        /// The path as given (or configured), `~` expanded: what [filesystem] sections match.
        var watchedPath: String?

        var severity: Severity { level ?? .normal }
    }

    /// One update in `format` (a bar format); nil when there is nothing to show (every block
    /// hidden). `home` (as the environment gives it, never resolved: that could touch a
    /// dead mount) is written "~" in labels.
    static func line(_ items: [Item], format: OutputFormat, profiles: BarProfiles, home: String?) -> String? {
        let blocks = items.map { item in
            BarBlock(item.snapshot, options: profiles.options(watchedPath: item.watchedPath, snapshot: item.snapshot)
                        .labelled(for: item.snapshot, among: items.count, home: home),
                     severity: item.severity, expanded: item.expanded)
        }
        if format == .i3bar { return I3barRenderer.statusLine(blocks) }
        guard let block = BarBlock.combined(blocks, headings: BarBlock.headings(items.map { $0.snapshot })) else { return nil }
        return SnapshotView.barLine(block, format: format)
    }

    /// The text format: each filesystem's line (led by its path when there are several),
    /// fitted to `columns` (a terminal's width), and its details when expanded. A line a
    /// template leaves empty is left out.
    static func text(_ items: [Item], profiles: BarProfiles, columns: Int?) -> String {
        items.compactMap { item -> String? in
            let options = profiles.options(watchedPath: item.watchedPath, snapshot: item.snapshot)
            let prefix = items.count > 1 ? ControlCharacters.replaced(in: item.snapshot.path) + "  " : ""
            let line = TextFit.statusLine(item.snapshot, options: options, severity: item.severity, prefix: prefix, columns: columns)
            var lines = line.isEmpty ? [] : [prefix + line]
            if item.expanded { lines += TextRenderer.detailLines(item.snapshot, options: options) }
            return lines.isEmpty ? nil : lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// JSON, with "text" when a template says what the block shows, and the label of the
    /// configuration's section when `labels` (the configuration read) are given.
    static func json(_ item: Item, profiles: BarProfiles, labels: BarProfiles? = nil) -> String {
        let options = profiles.options(watchedPath: item.watchedPath, snapshot: item.snapshot)
        let text = options.templates.setsText ? TextRenderer.statusLine(item.snapshot, options: options, severity: item.severity) : nil
        let label = labels?.options(watchedPath: item.watchedPath, snapshot: item.snapshot).label
        return JSONRenderer.render(item.snapshot, text: text, label: label, level: item.level)
    }
}

/// A status line that never wraps in a terminal: the bar gives up cells until the line fits,
/// and what still does not fit is cut.
enum TextFit {
    static func statusLine(_ snapshot: Snapshot, options: BarOptions, severity: Severity, prefix: String, columns: Int?) -> String {
        let line = TextRenderer.statusLine(snapshot, options: options, severity: severity)
        guard let columns, columns > 0, prefix.count + line.count > columns else { return line }
        var narrower = options
        let cells = options.barWidth ?? ProgressBar.defaultWidth
        narrower.barWidth = max(0, cells - (prefix.count + line.count - columns))
        let fitted = TextRenderer.statusLine(snapshot, options: narrower, severity: severity)
        let room = max(columns - prefix.count, 0)
        return fitted.count <= room ? fitted : String(fitted.prefix(room))
    }
}
