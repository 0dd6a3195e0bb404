import UsedSpaceCore
import UsedSpaceSystem

/// Plain lines on stderr, when not running under journald: "usedspaced: warning: message (key=value)".
enum StandardErrorLog {
    static func write(identifier: String, level: Logger.Level, message: String, metadata: Logger.Metadata) {
        // The journal gets every field; a person reading stderr needs each fact once.
        let details = metadata.filter { !TextSearch.contains(message, $0.value) }
            .sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        StandardStreams.error("\(identifier): \(level): \(message)" + (details.isEmpty ? "" : " (" + details.joined(separator: " ") + ")"))
    }
}
