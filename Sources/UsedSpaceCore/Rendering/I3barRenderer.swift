/// The i3bar protocol (i3bar-protocol(7)): a header announcing click events, then an
/// endless JSON array with one array of blocks per update.
public enum I3barRenderer {
    public static let header = "{\"version\":1,\"click_events\":true}\n[\n"
    public static let blockName = "usedspace"

    /// Whether a click event is on one of our blocks: i3bar sends the clicks of every block
    /// of the bar to the status command, and a block without a name is not ours.
    public static func owns(_ event: ClickEvent) -> Bool { event.name == blockName }

    /// The first update is written as is; every later one is preceded by a comma.
    public static func update(_ blocks: [BarBlock], isFirst: Bool) -> String {
        (isFirst ? "" : ",") + statusLine(blocks) + "\n"
    }

    /// One status line: the array of the visible blocks.
    public static func statusLine(_ blocks: [BarBlock]) -> String {
        "[" + blocks.filter { !$0.hidden }.map(block).joined(separator: ",") + "]"
    }

    static func block(_ block: BarBlock) -> String {
        var json = JSONObjectWriter()
        json.add("name", blockName)
        json.add("instance", block.instance)
        json.add("full_text", block.fullText)
        json.add("short_text", block.shortText)
        if let color = block.color { json.add("color", color) }
        if block.urgent { json.add("urgent", true) }
        json.add("markup", "none")
        return json.finish()
    }
}
