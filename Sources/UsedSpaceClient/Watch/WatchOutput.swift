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

    typealias Item = BarOutput.Item

    /// Shows the filesystems (one, or every watched one); returns false when the reader
    /// (the bar) has gone away. `changed` is the snapshot that is news, for the formats that
    /// write one line per snapshot (json).
    mutating func show(_ items: [Item], changed: Snapshot?, profiles: BarProfiles, home: String?) -> Bool {
        guard !items.isEmpty else { return true }
        let text: String
        switch format {
        case .text:
            text = BarOutput.text(items, profiles: profiles, columns: Terminal.columns())
        case .json:
            // Every publish is news in JSON (seq, time): one object per published snapshot.
            guard let changed else { return true }
            let item = items.first { $0.snapshot == changed } ?? Item(snapshot: changed, level: changed.level, expanded: false, watchedPath: nil)
            return StandardStreams.write(BarOutput.json(item, profiles: profiles) + "\n")
        case .i3bar, .i3blocks, .polybar, .waybar:
            guard let line = BarOutput.line(items, format: format, profiles: profiles, home: home) else { return true }
            text = line
        }
        guard text != lastShown else { return true }
        return emit(text)
    }

    private mutating func emit(_ text: String) -> Bool {
        lastShown = text
        defer { isFirst = false }
        if format == .i3bar { return StandardStreams.write((isFirst ? "" : ",") + text + "\n") }
        return StandardStreams.write(text + "\n")
    }
}
