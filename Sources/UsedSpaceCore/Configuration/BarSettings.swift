/// The [bar] section (and a [filesystem PATH] section): how `watch`, `status` and the
/// daemon's renderings show a filesystem.
extension BarOptions {
    public static let configKeys = [
        "warn", "critical", "hysteresis", "hide-below", "click-right", "label", "bar-width", "bar-glyphs", "unit", "icons",
        "template", "template-warning", "template-critical", "template-stale", "template-failed", "template-not-mounted",
        "template-below", "template-details", "color-normal", "color-warning", "color-critical",
    ]

    /// Keys that may repeat and make a list: the last occurrences of a section replace the
    /// list of the layer below (the [bar] section, the command line).
    public struct Lists: Equatable, Sendable {
        public var warning: [AlertLimit] = []
        public var critical: [AlertLimit] = []
        public var details: [Template] = []
        public var detailsSet = false
        public init() {}
    }

    /// Applies the [bar] section. `warn`, `critical` and `template-details` may repeat.
    /// Unknown keys are errors.
    public mutating func apply(_ file: ConfigFile) throws(ConfigError) {
        try apply(file.entries.filter { $0.section == "bar" })
    }

    /// Applies entries of one section, in order.
    public mutating func apply(_ entries: [ConfigFile.Entry]) throws(ConfigError) {
        var lists = Lists()
        for entry in entries {
            do {
                try set(entry.key, entry.value, lists: &lists)
            } catch {
                throw ConfigError(line: entry.line, message: error.message, column: error.offset.map { entry.column(ofValueOffset: $0) })
            }
        }
        finish(lists)
    }

    /// The lists gathered by `set`, over those of the layer below.
    public mutating func finish(_ lists: Lists) {
        if !lists.warning.isEmpty { severity.warning = lists.warning }
        if !lists.critical.isEmpty { severity.critical = lists.critical }
        if lists.detailsSet { templates.details = lists.details }
    }

    public struct SettingError: Error, Equatable {
        public var message: String
        /// For a template: the character of the value the problem is at.
        public var offset: Int?
        public init(_ message: String, offset: Int? = nil) {
            self.message = message
            self.offset = offset
        }
    }

    /// One bar setting, from the config file or the command line (`--warn 80%` …).
    public mutating func set(_ key: String, _ value: String, lists: inout Lists) throws(SettingError) {
        let shown = ControlCharacters.replaced(in: value)
        func template() throws(SettingError) -> Template {
            do {
                return try Template.parse(value)
            } catch {
                throw SettingError("\(key): \(error.message)", offset: error.offset)
            }
        }
        switch key {
        case "warn", "critical":
            let limit: AlertLimit
            do { limit = try AlertLimit.parse(value) } catch { throw SettingError("\(key): \(error)") }
            if key == "warn" { lists.warning.append(limit) } else { lists.critical.append(limit) }
        case "hysteresis":
            guard let fraction = try? ThresholdParser.parse(value.hasSuffix("%") ? value : value + "%") else {
                throw SettingError("hysteresis: '\(shown)' is not a percentage such as 1%")
            }
            severity.hysteresis = fraction
        case "hide-below":
            guard let fraction = try? ThresholdParser.parse(value.hasSuffix("%") ? value : value + "%") else {
                throw SettingError("hide-below: '\(shown)' is not a percentage such as 50%")
            }
            hideBelow = fraction
        case "click-right":
            rightClickCommand = value.isEmpty ? nil : value
        case "label":
            label = value
        case "bar-width":
            guard let width = Int(value), (0...100).contains(width) else {
                throw SettingError("bar-width: '\(shown)' is not a number of cells from 0 to 100")
            }
            barWidth = width
        case "bar-glyphs":
            guard let parsed = BarGlyphs(value) else {
                throw SettingError("bar-glyphs: '\(shown)' is not two characters, a filled and an empty cell, such as #- (or ascii)")
            }
            glyphs = parsed
        case "unit":
            guard let parsed = SizeUnit(rawValue: value) else {
                throw SettingError("unit: '\(shown)' is not a unit; the units are \(SizeUnit.names)")
            }
            unit = parsed
        case "icons":
            let words = value.split(separator: " ").map(String.init)
            let ramp = words.count > 1 ? words : value.map { String($0) }
            guard !ramp.isEmpty, ramp.count <= 100 else {
                throw SettingError("icons: give from 1 to 100 icons, as characters (▁▃▅▇) or words separated by blanks")
            }
            icons = ramp
        case "template": templates.normal = try template()
        case "template-warning": templates.warning = try template()
        case "template-critical": templates.critical = try template()
        case "template-stale": templates.stale = try template()
        case "template-failed": templates.failed = try template()
        case "template-not-mounted": templates.notMounted = try template()
        case "template-below": templates.below = try template()
        case "template-details":
            lists.details.append(try template())
            lists.detailsSet = true
        case "color-normal", "color-warning", "color-critical":
            let color: String? = value.isEmpty || value == "none" ? nil : value
            if let color, !BarOptions.isColor(color) {
                throw SettingError("\(key): '\(shown)' is not a colour such as #FF0000 (or none)")
            }
            switch key {
            case "color-normal": normalColor = color
            case "color-warning": warningColor = color
            default: criticalColor = color
            }
        default:
            throw SettingError("unknown key '\(ControlCharacters.replaced(in: key))' in [bar]; the keys are \(BarOptions.configKeys.joined(separator: ", "))")
        }
    }
}
