/// A running `watch` that takes clicks from `usedspace click`: its control socket's file
/// name says whose it is — `PID[.NAME][@OUTPUT].sock` — so that a click picks the block
/// that was clicked without asking every watch.
public struct BlockEndpoint: Equatable, Sendable {
    public var pid: Int32
    /// `--name` (i3blocks: $BLOCK_NAME), to tell several blocks of one bar apart.
    public var name: String?
    /// waybar's output ($WAYBAR_OUTPUT_NAME): one bar per monitor runs the same module.
    public var output: String?

    public init(pid: Int32, name: String?, output: String?) {
        self.pid = pid
        self.name = name.map(Self.sanitized)
        self.output = output.map(Self.sanitized)
    }

    public var fileName: String {
        "\(pid)" + (name.map { "." + $0 } ?? "") + (output.map { "@" + $0 } ?? "") + ".sock"
    }

    public init?(fileName: String) {
        guard fileName.hasSuffix(".sock") else { return nil }
        var rest = Substring(fileName.dropLast(5))
        var output: String?
        if let at = rest.firstIndex(of: "@") {
            output = String(rest[rest.index(after: at)...])
            rest = rest[..<at]
        }
        var name: String?
        if let dot = rest.firstIndex(of: ".") {
            name = String(rest[rest.index(after: dot)...])
            rest = rest[..<dot]
        }
        guard let pid = Int32(rest), pid > 0 else { return nil }
        self.init(pid: pid, name: name, output: output)
    }

    /// Names and outputs become file-name safe: letters, digits, `-` and `_`, at most 64.
    static func sanitized(_ text: String) -> String {
        String(text.prefix(64).map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
    }

    /// The blocks a click means. With `pid` (polybar's %pid%: the script, or the shell
    /// that runs it), the watch that is it or runs under it. Without, the watches named
    /// `name` (any, when nil) of the bar the click came from: those sharing the longest
    /// line of ancestors with the clicker (`lineage`: a process, its parent… to 1); and
    /// of those, the ones on the clicker's `output` when both know theirs.
    public static func selected(_ endpoints: [BlockEndpoint], pid: Int32?, name: String?, output: String?,
                                clicker: [Int32], lineage: (Int32) -> [Int32]) -> [BlockEndpoint] {
        let wanted = name.map(sanitized)
        let named = endpoints.filter { wanted == nil || $0.name == wanted }
        if let pid {
            return named.filter { lineage($0.pid).contains(pid) }
        }
        // The deepest ancestor (other than init) each watch shares with the clicker.
        let scored = named.map { endpoint -> (BlockEndpoint, Int) in
            let chain = lineage(endpoint.pid)
            let shared = clicker.firstIndex { $0 > 1 && chain.contains($0) }
            return (endpoint, shared.map { clicker.count - $0 } ?? 0)
        }
        guard let best = scored.map({ $0.1 }).max(), best > 0 else { return [] }
        var chosen = scored.filter { $0.1 == best }.map { $0.0 }
        if let output = output.map(sanitized), chosen.contains(where: { $0.output == output }) {
            chosen = chosen.filter { $0.output == output }
        }
        return chosen
    }
}

/// What `/proc/PID/stat` says about a process: its parent's id (the fourth field, after the
/// command name in parentheses, which may itself hold blanks and parentheses).
public enum ProcessStat {
    public static func parentID(_ text: String) -> Int32? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count >= 2 else { return nil }
        return Int32(fields[1])
    }
}
