/// waybar's custom module with `"return-type": "json"`: one object per line with `text`,
/// `tooltip` (the details), `class` (normal, warning, critical, stale, failed) and
/// `percentage`. waybar reads text and tooltip as Pango markup, so both are escaped.
public enum WaybarRenderer {
    public static func line(_ block: BarBlock) -> String {
        var classes = [block.failed ? "failed" : block.severity.name]
        if block.stale { classes.append("stale") }
        var json = JSONObjectWriter()
        json.add("text", block.hidden ? "" : MarkupText.escaped(block.fullText))
        json.add("alt", block.severity.name)
        json.add("tooltip", MarkupText.escaped(block.details.joined(separator: "\n")))
        json.addRaw("class", "[" + classes.map(JSONObjectWriter.quoted).joined(separator: ",") + "]")
        json.add("percentage", block.percentage)
        return json.finish()
    }
}
