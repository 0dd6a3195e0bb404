/// Renders a snapshot as a view request asks: the lines of one answer or one update.
public enum SnapshotView {
    /// The formats a one-shot answer can take.
    public static func supports(_ format: WireFormat) -> Bool {
        switch format {
        case .snapshot, .rendered(.text), .rendered(.json): return true
        default: return false
        }
    }

    public static func lines(_ snapshot: Snapshot, format: WireFormat, details: Bool) -> [String] {
        switch format {
        case .snapshot:
            return [SnapshotCodec.encode(snapshot)]
        case .rendered(.json):
            return [JSONRenderer.render(snapshot)]
        case .rendered:
            var lines = [TextRenderer.statusLine(snapshot)]
            if details { lines += TextRenderer.detailLines(snapshot) }
            return lines
        }
    }
}
