/// polybar's script module with `tail = true`: one line per update, coloured with
/// `%{F#rrggbb}…%{F-}`. A hidden block is an empty line.
public enum PolybarRenderer {
    public static func line(_ block: BarBlock) -> String {
        guard !block.hidden else { return "" }
        // "%{" would start a formatting tag: a path or label must not inject one.
        let text = TextSearch.replacing("%{", with: "% {", in: block.fullText)
        guard let color = block.color else { return text }
        return "%{F\(color)}\(text)%{F-}"
    }
}
