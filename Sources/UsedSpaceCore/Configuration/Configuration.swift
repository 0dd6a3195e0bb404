/// The whole configuration file, every section checked: what `usedspace config check`
/// validates, what the daemon loads, and what `watch` takes its [bar] settings from.
public struct Configuration: Equatable, Sendable {
    public static let sections = ["daemon", "bar", "notify", "prometheus"]

    public var daemon = DaemonSettings()
    public var bar = BarOptions()
    public var notify = LowSpacePolicy()

    public init() {}

    /// Every problem of the file, in line order (empty when it is valid).
    public static func check(_ text: String) -> [ConfigError] {
        let (file, syntax) = ConfigFile.parseAll(text)
        var errors = syntax
        for entry in file.entries {
            guard sections.contains(entry.section) else {
                errors.append(ConfigError(line: entry.line, message: "unknown section [\(entry.section)]; the sections are \(sections.map { "[\($0)]" }.joined(separator: ", "))"))
                continue
            }
            var scratch = Configuration()
            let single = ConfigFile(entries: [entry])
            do {
                try scratch.daemon.apply(single)
                try scratch.bar.apply(single)
                try scratch.notify.apply(single)
            } catch {
                errors.append(error)
            }
        }
        return errors.sorted { $0.line < $1.line }
    }

    public static func parse(_ text: String) throws(ConfigError) -> Configuration {
        let file = try ConfigFile.parse(text)
        if let stray = file.entries.first(where: { !sections.contains($0.section) }) {
            throw ConfigError(line: stray.line, message: "unknown section [\(stray.section)]; the sections are \(sections.map { "[\($0)]" }.joined(separator: ", "))")
        }
        var configuration = Configuration()
        try configuration.daemon.apply(file)
        try configuration.bar.apply(file)
        try configuration.notify.apply(file)
        return configuration
    }
}
