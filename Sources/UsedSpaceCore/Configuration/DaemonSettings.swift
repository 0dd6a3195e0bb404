/// What the daemon runs with: built from defaults, then the [daemon] section of the
/// configuration file, then command-line options (which win).
public struct DaemonSettings: Equatable, Sendable {
    /// Paths to watch, as written (`~` and `~/…` are the home directory); the first is the
    /// default for clients that name none.
    public var paths: [String] = ["~"]
    /// `path = auto`: also watch every real filesystem mounted (RealFilesystems), following
    /// mounts and unmounts; the explicit paths come first, and a filesystem one of them is
    /// on is not watched twice.
    public var followsMounts = false
    public var intervalMicroseconds: UInt64 = 5_000_000
    public var threshold: Fraction = PublishPolicy.defaultThreshold
    /// How long one statvfs may take before the snapshot is served as stale.
    public var sampleTimeoutMicroseconds: UInt64 = 5_000_000
    public var maximumClients = 1024
    /// A connection that completes no request for this long, and is not subscribed, is closed.
    public var idleTimeoutMicroseconds: UInt64 = 10_000_000
    /// Where to keep a node_exporter textfile (usedspace.prom) current (`~` allowed, as in
    /// `paths`); nil for none.
    public var textfileDirectory: String?

    public init() {}

    public static let intervalRange: ClosedRange<UInt64> = 100_000...86_400_000_000
    public static let timeoutRange: ClosedRange<UInt64> = 100_000...600_000_000
    public static let clientRange: ClosedRange<Int> = 1...65_536
    public static let idleTimeoutRange: ClosedRange<UInt64> = 100_000...3_600_000_000

    /// Applies the [daemon] section; unknown keys are errors (a typo must not pass silently).
    public mutating func apply(_ file: ConfigFile) throws(ConfigError) {
        var paths: [String] = []
        var auto = false
        for entry in file.entries where entry.section == "daemon" {
            do throws(SettingError) {
                switch entry.key {
                case "path":
                    if entry.value == Self.automaticPath { auto = true } else { paths.append(try Self.validatedPath(entry.value)) }
                case "interval":
                    intervalMicroseconds = try Self.duration(entry.value, in: Self.intervalRange)
                case "threshold":
                    do { threshold = try ThresholdParser.parse(entry.value) } catch { throw SettingError(error.description) }
                case "sample-timeout":
                    sampleTimeoutMicroseconds = try Self.duration(entry.value, in: Self.timeoutRange)
                case "max-clients":
                    maximumClients = try Self.count(entry.value, in: Self.clientRange)
                case "idle-timeout":
                    idleTimeoutMicroseconds = try Self.duration(entry.value, in: Self.idleTimeoutRange)
                default:
                    throw SettingError("unknown key '\(entry.key)' in [daemon]; the keys are path, interval, threshold, sample-timeout, max-clients, idle-timeout")
                }
            } catch {
                // Every message names its key, as the command line's name their option.
                let message = error.message.hasPrefix("unknown key") || error.message.hasPrefix("\(entry.key) ") ? error.message : "\(entry.key): \(error.message)"
                throw ConfigError(line: entry.line, message: message)
            }
        }
        if !paths.isEmpty || auto {
            self.paths = paths
            followsMounts = auto
        }
        for entry in file.entries where entry.section == "prometheus" {
            switch entry.key {
            case "textfile-dir":
                guard entry.value.hasPrefix("/") || entry.value == "~" || entry.value.hasPrefix("~/") else {
                    throw ConfigError(line: entry.line, message: "textfile-dir: '\(ControlCharacters.replaced(in: entry.value))' must be an absolute path or start with ~/")
                }
                textfileDirectory = entry.value
            default:
                throw ConfigError(line: entry.line, message: "unknown key '\(entry.key)' in [prometheus]; the key is textfile-dir")
            }
        }
    }

    struct SettingError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// The value of `path` (and `--path`) that means every real filesystem mounted.
    public static let automaticPath = "auto"

    static func validatedPath(_ value: String) throws(SettingError) -> String {
        guard value == "~" || value.hasPrefix("~/") || value.hasPrefix("/") else {
            throw SettingError("'\(ControlCharacters.replaced(in: value))' must be an absolute path, start with ~/, or be auto (every real filesystem mounted)")
        }
        return value
    }

    static func duration(_ value: String, in range: ClosedRange<UInt64>) throws(SettingError) -> UInt64 {
        guard let microseconds = DurationParser.microseconds(value) else {
            throw SettingError("'\(ControlCharacters.replaced(in: value))' is not a duration such as 5s, 500ms or 2min")
        }
        guard range.contains(microseconds) else {
            throw SettingError("\(DurationParser.describe(microseconds: microseconds)) is outside the range \(DurationParser.describe(microseconds: range.lowerBound)) to \(DurationParser.describe(microseconds: range.upperBound))")
        }
        return microseconds
    }

    static func count(_ value: String, in range: ClosedRange<Int>) throws(SettingError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw SettingError("'\(ControlCharacters.replaced(in: value))' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// `~` and `~/…` against a home directory.
    public static func expand(_ path: String, home: String?) -> String? {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home.map { $0 + path.dropFirst(1) } }
        return path
    }
}

extension DaemonSettings.SettingError: CustomStringConvertible {
    var description: String { message }
}
