/// Frames of the daemon's answers. Every frame starts with a header line:
///
///     ok N          the answer to a request, N body lines follow
///     update N      a published snapshot, to a subscriber; N body lines follow
///     error CODE MESSAGE
///
/// Body lines never contain a newline: renderers escape or replace control characters.
public enum ResponseFrame {
    public static func ok(_ lines: [String]) -> String { frame("ok", lines) }

    public static func update(_ lines: [String]) -> String { frame("update", lines) }

    public static func error(_ error: RequestError) -> String {
        "error \(error.code) \(ControlCharacters.replaced(in: error.message))\n"
    }

    private static func frame(_ word: String, _ lines: [String]) -> String {
        let body = bodyLines(lines)
        var text = word + " " + String(body.count) + "\n"
        for line in body {
            text += line
            text += "\n"
        }
        return text
    }

    /// The lines a frame carries for `lines`: a stray newline inside a line would
    /// desynchronise the reader, so it splits the line instead ("\r\n" is one Character,
    /// so it is named too).
    public static func bodyLines(_ lines: [String]) -> [String] {
        // A newline is in the "\n" and "\r\n" Characters only: without its byte, a line is
        // one body line as it is (the usual case, at a fraction of the cost of splitting).
        guard lines.contains(where: { $0.utf8.contains(UInt8(ascii: "\n")) }) else { return lines }
        return lines.flatMap { line in
            line.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init)
        }
    }

    public enum Header: Equatable, Sendable {
        case ok(lines: Int)
        case update(lines: Int)
        case error(code: String, message: String)
    }

    /// Parses a header line (without its newline), for clients.
    public static func parseHeader(_ line: String) -> Header? {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        switch parts[0] {
        case "ok", "update":
            guard parts.count == 2, let count = Int(parts[1]), count >= 0, count <= 10_000 else { return nil }
            return parts[0] == "ok" ? .ok(lines: count) : .update(lines: count)
        case "error":
            return .error(code: String(parts[1]), message: parts.count > 2 ? String(parts[2]) : "")
        default:
            return nil
        }
    }
}
