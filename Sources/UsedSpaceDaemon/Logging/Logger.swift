/// The daemon's log: each line with a level and structured fields, to journald when systemd
/// connected stderr to it (JournalLog), otherwise as plain lines on stderr
/// (StandardErrorLog). The line and its fields are built only when the level is logged.
struct Logger: Sendable {
    /// swift-log's levels; journald's priorities (JournalLog.priority).
    enum Level: Int, Comparable, Sendable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error, critical

        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }
    }

    /// Fields besides the message: journald's USEDSPACE_<KEY>, `(key=value)` on stderr.
    typealias Metadata = [String: String]

    enum Destination: Sendable {
        case journal
        case standardError
    }

    let identifier: String
    let destination: Destination
    var logLevel: Level

    init(identifier: String, destination: Destination, logLevel: Level = .info) {
        self.identifier = identifier
        self.destination = destination
        self.logLevel = logLevel
    }

    /// Plain lines on stderr from `.info` up (what the unit tests' parts log).
    init(label: String) {
        self.init(identifier: label, destination: .standardError)
    }

    func log(level: Level, _ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:],
             file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line) {
        guard logLevel <= level else { return }
        switch destination {
        case .journal:
            JournalLog.send(identifier: identifier, level: level, message: message(), metadata: metadata(),
                            file: file, function: function, line: line)
        case .standardError:
            StandardErrorLog.write(identifier: identifier, level: level, message: message(), metadata: metadata())
        }
    }

    func trace(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:],
               file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line) {
        log(level: .trace, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:],
               file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line) {
        log(level: .debug, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:],
              file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line) {
        log(level: .info, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    func notice(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:],
                file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line) {
        log(level: .notice, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:],
                 file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line) {
        log(level: .warning, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:],
               file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line) {
        log(level: .error, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    func critical(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:],
                  file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line) {
        log(level: .critical, message(), metadata: metadata(), file: file, function: function, line: line)
    }
}
