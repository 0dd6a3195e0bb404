/// The whole configuration file, every section checked: what `usedspace config check`
/// validates, what the daemon loads, and what `watch` and `status` take their bar
/// settings from.
public struct Configuration: Equatable, Sendable {
    public static let sections = ["daemon", "bar", "notify", "prometheus", "filesystem"]

    public var daemon = DaemonSettings()
    public var bar = BarOptions()
    public var notify = LowSpacePolicy()
    /// [filesystem PATH] sections, in the order of the file.
    public var filesystems: [FilesystemSection] = []

    public init() {}

    static var sectionList: String { sections.map { $0 == "filesystem" ? "[filesystem PATH]" : "[\($0)]" }.joined(separator: ", ") }

    /// Every problem of the file, in line order (empty when it is valid).
    public static func check(_ text: String) -> [ConfigError] {
        let (file, syntax) = ConfigFile.parseAll(text)
        var errors = syntax
        var headersChecked = Set<Int>()
        for entry in file.entries {
            guard sections.contains(entry.section) else {
                errors.append(ConfigError(line: entry.line, message: "unknown section [\(entry.section)]; the sections are \(sectionList)"))
                continue
            }
            do {
                if entry.section == "filesystem" {
                    if headersChecked.insert(entry.sectionLine).inserted { _ = try FilesystemSection.selector(of: entry) }
                    var scratch = FilesystemSection(selector: "/", line: 0)
                    try scratch.apply([entry], over: Configuration())
                    continue
                }
                var scratch = Configuration()
                try checkArgument(entry)
                let single = ConfigFile(entries: [entry])
                try scratch.daemon.apply(single)
                try scratch.bar.apply(single)
                try scratch.notify.apply(single)
            } catch {
                errors.append(error)
            }
        }
        return errors.sorted { ($0.line, $0.column ?? 0) < ($1.line, $1.column ?? 0) }
    }

    /// Only [filesystem] names something in its header.
    private static func checkArgument(_ entry: ConfigFile.Entry) throws(ConfigError) {
        guard let argument = entry.sectionArgument else { return }
        throw ConfigError(line: entry.sectionLine, message: "[\(entry.section)] takes nothing after its name, got '\(ControlCharacters.replaced(in: argument))'")
    }

    public static func parse(_ text: String) throws(ConfigError) -> Configuration {
        let file = try ConfigFile.parse(text)
        if let stray = file.entries.first(where: { !sections.contains($0.section) }) {
            throw ConfigError(line: stray.line, message: "unknown section [\(stray.section)]; the sections are \(sectionList)")
        }
        for entry in file.entries where entry.section != "filesystem" { try checkArgument(entry) }
        var configuration = Configuration()
        try configuration.daemon.apply(file)
        try configuration.bar.apply(file)
        try configuration.notify.apply(file)
        var headers: [Int] = []
        for entry in file.entries where entry.section == "filesystem" && !headers.contains(entry.sectionLine) { headers.append(entry.sectionLine) }
        for header in headers {
            let entries = file.entries.filter { $0.section == "filesystem" && $0.sectionLine == header }
            var section = FilesystemSection(selector: try FilesystemSection.selector(of: entries[0]), line: header)
            try section.apply(entries, over: configuration)
            configuration.filesystems.append(section)
        }
        return configuration
    }
}
