/// The daemon's line protocol, version 1 (documented in usedspaced(8)).
public enum ProtocolVersion {
    public static let current = 1
    /// Requests, path included, are at most this long; longer ones are refused.
    public static let maximumRequestLength = 4096
}

/// How a snapshot is to be written back: as one of the user-facing formats, or as the
/// exact persisted form (`snapshot`) that clients decode and render themselves.
public enum WireFormat: Equatable, Sendable {
    case rendered(OutputFormat)
    case snapshot

    public init?(name: String) {
        if name == "snapshot" {
            self = .snapshot
        } else if let format = OutputFormat(rawValue: name) {
            self = .rendered(format)
        } else {
            return nil
        }
    }

    public var name: String {
        switch self {
        case .rendered(let format): return format.rawValue
        case .snapshot: return "snapshot"
        }
    }
}

/// What a `status` or `subscribe` request asks to see.
public struct ViewRequest: Equatable, Sendable {
    public var format: WireFormat
    public var details: Bool
    /// A watched path (canonical); nil for the daemon's first (home) path.
    public var path: String?
    /// Every watched path: the answer has one snapshot per path, and a subscription gets an
    /// update for whichever path publishes.
    public var all: Bool

    public init(format: WireFormat = .rendered(.text), details: Bool = false, path: String? = nil, all: Bool = false) {
        self.format = format
        self.details = details
        self.path = path
        self.all = all
    }

    /// The request line that asks for this view, path percent-encoded.
    public func requestLine(verb: String) -> String {
        var line = verb + " format=" + format.name
        if details { line += " details" }
        if all { line += " all" }
        if let path { line += " path=" + PercentEncoding.encode(path) }
        return line + "\n"
    }
}

public enum Request: Equatable, Sendable {
    case hello
    case ping
    case help
    case quit
    /// Reload the configuration file and answer with the outcome (`usedspaced --reload`).
    case reload
    case status(ViewRequest)
    case subscribe(ViewRequest)
}

/// Why a request line was refused; `code` is the machine-readable word after `error`.
public struct RequestError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
