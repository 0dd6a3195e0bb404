import UsedSpaceCore

/// What a configuration amounts to, defaults included, one line per section: what
/// `usedspace config check` prints for a valid file, so that a user sees what the daemon and
/// the bars will do, every section whether the file has it or not.
enum ConfigurationSummary {
    static func lines(_ configuration: Configuration, sectionsInFile: Set<String>, home: String?) -> [String] {
        func origin(_ section: String) -> String { sectionsInFile.contains(section) ? "" : " (defaults)" }
        let daemon = configuration.daemon
        let watched = daemon.paths.map { path -> String in
            guard path.hasPrefix("~"), let expanded = DaemonSettings.expand(path, home: home) else { return path }
            return "\(path) (\(expanded))"
        }
        var watchedText = watched.joined(separator: ", ")
        if daemon.followsMounts {
            watchedText = (watched.isEmpty ? "" : watchedText + ", and ") + "every real filesystem mounted (auto: as `usedspace list` shows them, followed as they are mounted and unmounted)"
        }
        var lines = [
            "[daemon]\(origin("daemon")) watches \(watchedText); samples every "
                + "\(DurationParser.describe(microseconds: daemon.intervalMicroseconds)) and publishes when the used share "
                + "moves by \(PercentText.exact(daemon.threshold))%; a sample taking over "
                + "\(DurationParser.describe(microseconds: daemon.sampleTimeoutMicroseconds)) is stale; at most "
                + "\(daemon.maximumClients) clients, idle ones closed after \(DurationParser.describe(microseconds: daemon.idleTimeoutMicroseconds))",
        ]
        lines.append("[bar]\(origin("bar")) " + barLine(configuration.bar))
        for section in configuration.filesystems {
            var own = section.barEntries.map { "\($0.key) = \(ControlCharacters.replaced(in: $0.value))" }
            if section.bar.hidden { own.append("hidden") }
            if section.notify != configuration.notify { own.append("its own notification limits") }
            lines.append("[filesystem \(ControlCharacters.replaced(in: section.selector))] over [bar]: " + (own.isEmpty ? "nothing of its own" : own.joined(separator: ", ")))
        }
        lines.append("[notify]\(origin("notify")) " + notifyLine(configuration.notify))
        if let directory = daemon.textfileDirectory {
            lines.append("[prometheus] keeps \(directory)/usedspace.prom current for the node exporter")
        } else {
            lines.append("[prometheus]\(origin("prometheus")) no textfile (textfile-dir is not set)")
        }
        return lines
    }

    static func barLine(_ bar: BarOptions) -> String {
        var parts: [String] = []
        func limits(_ list: [AlertLimit]) -> String { list.map { $0.description }.joined(separator: " or ") }
        parts.append(bar.severity.warning.isEmpty ? "no warning level" : "warning at " + limits(bar.severity.warning))
        parts.append(bar.severity.critical.isEmpty ? "no critical level" : "critical at " + limits(bar.severity.critical))
        parts.append("hysteresis \(PercentText.exact(bar.severity.hysteresis))%")
        if let hide = bar.hideBelow { parts.append("hidden below \(PercentText.exact(hide))% used") }
        if let width = bar.barWidth {
            parts.append(width == 0 ? "no bar" : "a bar of \(width) cells")
        } else {
            parts.append("a bar of \(BarOptions.defaultBarWidth) cells (\(ProgressBar.defaultWidth) in text)")
        }
        if bar.glyphs != .blocks { parts.append("drawn with '\(bar.glyphs.text)'") }
        if bar.unit != .file { parts.append("sizes in \(bar.unit.rawValue)") }
        if let template = bar.templates.normal { parts.append("template '\(ControlCharacters.replaced(in: template.source))'") }
        if !bar.label.isEmpty { parts.append("label '\(ControlCharacters.replaced(in: bar.label))'") }
        parts.append(bar.rightClickCommand.map { "right click runs: \(ControlCharacters.replaced(in: $0))" } ?? "no right-click command")
        return parts.joined(separator: "; ")
    }

    static func notifyLine(_ notify: LowSpacePolicy) -> String {
        guard notify.enabled else { return "no desktop notifications" }
        return "notifies when at most \(PercentText.exact(notify.freeShare))% and at most \(ByteSizeParser.describe(notify.freeBytes)) are free, "
            + "again after a further \(PercentText.exact(notify.furtherDrop))% and at least "
            + "\(DurationParser.describe(microseconds: UInt64(notify.minimumPeriod) * 1_000_000)) later; "
            + "Ignore snoozes for \(DurationParser.describe(microseconds: UInt64(notify.snooze) * 1_000_000))"
    }
}
