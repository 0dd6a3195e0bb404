/// Renders a snapshot as a view request asks: the lines of one answer or one update.
public enum SnapshotView {
    /// Every format can be asked for once, shown with `options` (the daemon's are the [bar]
    /// and [filesystem] settings of its configuration, as `watch` reads them), at the level
    /// the snapshot carries.
    public static func lines(_ snapshot: Snapshot, format: WireFormat, details: Bool, options: BarOptions = BarOptions()) -> [String] {
        switch format {
        case .snapshot:
            return [SnapshotCodec.encode(snapshot)]
        case .rendered(.json):
            return [JSONRenderer.render(snapshot)]
        case .rendered(.text):
            let severity = FilesystemLevel.carried(by: snapshot, limits: options.severity)
            var lines = [TextRenderer.statusLine(snapshot, options: options, severity: severity)]
            if details { lines += TextRenderer.detailLines(snapshot, options: options) }
            return lines
        case .rendered(let barFormat):
            let severity = FilesystemLevel.carried(by: snapshot, limits: options.severity)
            let block = BarBlock(snapshot, options: options, severity: severity, expanded: details)
            return [barLine(block, format: barFormat)]
        }
    }

    /// One update of a bar format (for i3bar, a status line without the protocol's framing).
    public static func barLine(_ block: BarBlock, format: OutputFormat) -> String {
        switch format {
        case .i3bar: return I3barRenderer.statusLine([block])
        case .i3blocks: return I3blocksRenderer.line(block)
        case .polybar: return PolybarRenderer.line(block)
        case .waybar: return WaybarRenderer.line(block)
        case .text, .json: return block.fullText
        }
    }
}
