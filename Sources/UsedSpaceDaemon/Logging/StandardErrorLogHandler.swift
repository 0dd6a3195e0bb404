import Logging
import UsedSpaceSystem

/// Plain lines on stderr, when not running under journald: "usedspaced: warning: message (key=value)".
struct StandardErrorLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    let identifier: String

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let message = "\(event.message)"
        // The journal gets every field; a person reading stderr needs each fact once.
        let merged = metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }).filter { !Self.contains(message, "\($0.value)") }
        let details = merged.isEmpty ? "" : " (" + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + ")"
        StandardStreams.error("\(identifier): \(event.level): \(message)\(details)")
    }

    /// Whether `text` contains `part`, byte for byte (String's own `contains` of a string is
    /// the regex engine's, much code to page in for a log line).
    static func contains(_ text: String, _ part: String) -> Bool {
        let haystack = Array(text.utf8), needle = Array(part.utf8)
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        return (0...(haystack.count - needle.count)).contains { start in haystack[start..<(start + needle.count)].elementsEqual(needle) }
    }
}
