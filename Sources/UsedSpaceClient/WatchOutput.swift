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

    /// One filesystem as the bar shows it.
    struct Item {
        var snapshot: Snapshot
        var severity: Severity
        var expanded: Bool
    }

    /// Shows the filesystems (one, or every watched one); returns false when the reader
    /// (the bar) has gone away. `changed` is the snapshot that is news, for the formats that
    /// write one line per snapshot (json).
    mutating func show(_ items: [Item], changed: Snapshot?, bar: BarOptions) -> Bool {
        guard !items.isEmpty else { return true }
        let text: String
        switch format {
        case .text:
            text = items.map { item -> String in
                var lines = [(items.count > 1 ? ControlCharacters.replaced(in: item.snapshot.path) + "  " : "") + TextRenderer.statusLine(item.snapshot)]
                if item.expanded { lines += TextRenderer.detailLines(item.snapshot) }
                return lines.joined(separator: "\n")
            }.joined(separator: "\n")
        case .json:
            // Every publish is news in JSON (seq, time): one object per published snapshot.
            guard let changed else { return true }
            return StandardStreams.write(JSONRenderer.render(changed) + "\n")
        case .i3bar:
            text = I3barRenderer.statusLine(blocks(items, bar: bar))
        case .i3blocks, .polybar, .waybar:
            let blocks = blocks(items, bar: bar)
            guard let block = BarBlock.combined(blocks, mountPoints: items.map { $0.snapshot.mountPoint ?? $0.snapshot.path }) else { return true }
            text = SnapshotView.barLine(block, format: format)
        }
        guard text != lastShown else { return true }
        return emit(text)
    }

    private func blocks(_ items: [Item], bar: BarOptions) -> [BarBlock] {
        let home = ProcessEnvironment.homeDirectory.flatMap { try? PathResolver.canonical($0) }
        return items.map { item in
            BarBlock(item.snapshot, options: bar.labelled(for: item.snapshot, among: items.count, home: home),
                     severity: item.severity, expanded: item.expanded)
        }
    }

    private mutating func emit(_ text: String) -> Bool {
        lastShown = text
        defer { isFirst = false }
        if format == .i3bar { return StandardStreams.write((isFirst ? "" : ",") + text + "\n") }
        return StandardStreams.write(text + "\n")
    }
}
