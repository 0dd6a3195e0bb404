/// i3blocks with `format=json`: one JSON object per line. A hidden block is an empty
/// `full_text`, which i3blocks does not draw.
///
/// Written for i3blocks 1.4 (Debian 12) as well, whose reader takes a value that is a
/// string or digits and nothing else, and reads a string up to the next `"` whatever
/// escapes it: `urgent` is the string "true" (i3blocks passes it on to i3bar as the
/// boolean), and a `"` or `\` in the text is shown as a look-alike (″, ∖) rather than cut.
public enum I3blocksRenderer {
    public static func line(_ block: BarBlock) -> String {
        var json = JSONObjectWriter()
        json.add("full_text", block.hidden ? "" : readable(block.fullText))
        json.add("short_text", block.hidden ? "" : readable(block.shortText))
        if let color = block.color { json.add("color", color) }
        if block.urgent { json.add("urgent", "true") }
        return json.finish()
    }

    static func readable(_ text: String) -> String {
        guard text.contains(where: { $0 == "\"" || $0 == "\\" }) else { return text }
        return String(text.map { $0 == "\"" ? "″" : $0 == "\\" ? "∖" : $0 })
    }
}
