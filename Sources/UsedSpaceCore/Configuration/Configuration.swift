/// The whole configuration file, every section checked: what `usedspace config check`
/// validates, what the daemon loads, and what `watch` takes its [bar] settings from.
public struct Configuration: Equatable, Sendable {
    public static let sections = ["daemon", "bar"]

    public var daemon = DaemonSettings()
    public var bar = BarOptions()

    public init() {}

    public static func parse(_ text: String) throws(ConfigError) -> Configuration {
        let file = try ConfigFile.parse(text)
        if let stray = file.entries.first(where: { !sections.contains($0.section) }) {
            throw ConfigError(line: stray.line, message: "unknown section [\(stray.section)]; the sections are \(sections.map { "[\($0)]" }.joined(separator: ", "))")
        }
        var configuration = Configuration()
        try configuration.daemon.apply(file)
        try configuration.bar.apply(file)
        return configuration
    }
}
