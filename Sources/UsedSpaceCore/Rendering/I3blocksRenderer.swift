/// i3blocks with `format=json` (and `interval=persist` for `watch`): one JSON object per
/// line. A hidden block is an empty `full_text`, which i3blocks does not draw.
public enum I3blocksRenderer {
    public static func line(_ block: BarBlock) -> String {
        var json = JSONObjectWriter()
        json.add("full_text", block.hidden ? "" : block.fullText)
        json.add("short_text", block.hidden ? "" : block.shortText)
        if let color = block.color { json.add("color", color) }
        json.add("urgent", block.urgent)
        return json.finish()
    }
}
