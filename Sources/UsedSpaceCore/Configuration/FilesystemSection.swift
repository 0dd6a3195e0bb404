/// A [filesystem PATH] section: settings for one watched path, or for every path on one
/// mount point, over those of [bar] (and of [notify] for the daemon's notifications). PATH
/// is matched against the watched path as written (`~` expanded), the path it resolves to,
/// and then the mount point.
public struct FilesystemSection: Equatable, Sendable {
    /// As written in the header: an absolute path, `~` or `~/…`.
    public var selector: String
    /// The line of the header.
    public var line: Int
    /// The [bar] keys of the section, applied over [bar].
    public var barEntries: [ConfigFile.Entry] = []
    /// [bar] with this section's keys applied.
    public var bar = BarOptions()
    /// [notify] with this section's `notify`, `notify-free-below` and `notify-free-size-below`.
    public var notify = LowSpacePolicy()

    public static let ownKeys = ["hidden", "notify", "notify-free-below", "notify-free-size-below"]
    public static var configKeys: [String] { BarOptions.configKeys + ownKeys }

    public init(selector: String, line: Int) {
        self.selector = selector
        self.line = line
    }

    static func selector(of entry: ConfigFile.Entry) throws(ConfigError) -> String {
        guard let argument = entry.sectionArgument else {
            throw ConfigError(line: entry.sectionLine, message: "[filesystem] names the path or mount point it is about, e.g. [filesystem /data] or [filesystem ~]")
        }
        guard argument == "~" || argument.hasPrefix("~/") || argument.hasPrefix("/") else {
            throw ConfigError(line: entry.sectionLine, message: "[filesystem \(ControlCharacters.replaced(in: argument))]: the path must be absolute or start with ~/")
        }
        return argument
    }

    /// Applies the section's entries over the [bar] and [notify] of `configuration`.
    mutating func apply(_ entries: [ConfigFile.Entry], over configuration: Configuration) throws(ConfigError) {
        bar = configuration.bar
        notify = configuration.notify
        var barOnly: [ConfigFile.Entry] = []
        for entry in entries {
            let shown = ControlCharacters.replaced(in: entry.value)
            switch entry.key {
            case "hidden":
                guard let value = Self.yesOrNo(entry.value) else { throw ConfigError(line: entry.line, message: "hidden: '\(shown)' is not yes or no") }
                bar.hidden = value
            case "notify":
                guard let value = Self.yesOrNo(entry.value) else { throw ConfigError(line: entry.line, message: "notify: '\(shown)' is not yes or no") }
                notify.enabled = value
            case "notify-free-below", "notify-free-size-below":
                var renamed = entry
                renamed.section = "notify"
                renamed.key = String(entry.key.dropFirst("notify-".count))
                do {
                    try notify.apply(ConfigFile(entries: [renamed]))
                } catch {
                    throw ConfigError(line: entry.line, message: "notify-" + error.message)
                }
            default:
                guard BarOptions.configKeys.contains(entry.key) else {
                    throw ConfigError(line: entry.line, message: "unknown key '\(ControlCharacters.replaced(in: entry.key))' in [filesystem]; the keys are \(Self.configKeys.joined(separator: ", "))")
                }
                barOnly.append(entry)
            }
        }
        try bar.apply(barOnly)
        barEntries = barOnly
    }

    static func yesOrNo(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: return nil
        }
    }

    /// Whether the section is about a filesystem watched as `watchedPath` (as given, `~`
    /// expanded) that resolved to `path`: by path (`byMountPoint` false) or by mount point.
    func matches(watchedPath: String?, path: String?, mountPoint: String?, home: String?, byMountPoint: Bool) -> Bool {
        guard let expanded = DaemonSettings.expand(selector, home: home).map(Self.withoutTrailingSlash) else { return false }
        if byMountPoint { return mountPoint == expanded }
        return watchedPath.map(Self.withoutTrailingSlash) == expanded || path == expanded
    }

    static func withoutTrailingSlash(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}

extension Configuration {
    /// The [filesystem] section about a filesystem: one naming its path first, else one
    /// naming its mount point; the first such in the file.
    public func section(watchedPath: String?, snapshot: Snapshot?, home: String?) -> FilesystemSection? {
        for byMountPoint in [false, true] {
            if let found = filesystems.first(where: {
                $0.matches(watchedPath: watchedPath, path: snapshot?.path, mountPoint: snapshot?.mountPoint, home: home, byMountPoint: byMountPoint)
            }) { return found }
        }
        return nil
    }

    /// The notification policy of a watched filesystem.
    public func notifyPolicy(watchedPath: String?, snapshot: Snapshot, home: String?) -> LowSpacePolicy {
        section(watchedPath: watchedPath, snapshot: snapshot, home: home)?.notify ?? notify
    }
}

/// The bar settings of each filesystem: [bar], a [filesystem] section, then the command
/// line's options, which win. Worked out once, when the configuration is read.
public struct BarProfiles: Sendable {
    public let configuration: Configuration
    public let home: String?
    /// [bar] and the command line.
    public let base: BarOptions
    /// Each section's, with the command line.
    private let sections: [BarOptions]

    public init(configuration: Configuration, commandLine: [(key: String, value: String)] = [], home: String?) {
        self.configuration = configuration
        self.home = home
        func withCommandLine(_ options: BarOptions) -> BarOptions {
            var options = options
            var lists = BarOptions.Lists()
            for (key, value) in commandLine { try? options.set(key, value, lists: &lists) }
            options.finish(lists)
            return options
        }
        base = withCommandLine(configuration.bar)
        sections = configuration.filesystems.map { withCommandLine($0.bar) }
    }

    public func options(watchedPath: String?, snapshot: Snapshot?) -> BarOptions {
        guard let section = configuration.section(watchedPath: watchedPath, snapshot: snapshot, home: home),
              let index = configuration.filesystems.firstIndex(of: section) else { return base }
        return sections[index]
    }
}
