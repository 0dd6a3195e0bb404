import UsedSpaceCore
import UsedSpaceSystem

/// Writes `watch`'s updates in one format, only when what the bar would show changes.
struct WatchOutput {
    let format: OutputFormat
    private var isFirst = true
    private var lastShown: String?

    init(format: OutputFormat) {
        self.format = format
    }

    /// The i3bar protocol's header; nothing for the other formats. False when stdout is gone.
    mutating func start() -> Bool {
        format == .i3bar ? StandardStreams.write(I3barRenderer.header) : true
    }

    /// Shows a snapshot; returns false when the reader (the bar) has gone away.
    mutating func show(_ snapshot: Snapshot, bar: BarOptions, severity: Severity, expanded: Bool) -> Bool {
        let text: String
        switch format {
        case .text:
            var lines = [TextRenderer.statusLine(snapshot)]
            if expanded { lines += TextRenderer.detailLines(snapshot) }
            text = lines.joined(separator: "\n")
        case .json:
            text = JSONRenderer.render(snapshot)
        case .i3bar, .i3blocks, .polybar, .waybar:
            let block = BarBlock(snapshot, options: bar, severity: severity, expanded: expanded)
            text = SnapshotView.barLine(block, format: format)
        }
        // JSON carries seq and time: every publish is news. For the others, only a change
        // of what is drawn is.
        guard format == .json || text != lastShown else { return true }
        lastShown = text
        defer { isFirst = false }
        if format == .i3bar { return StandardStreams.write((isFirst ? "" : ",") + text + "\n") }
        return StandardStreams.write(text + "\n")
    }
}
