/// The [bar] section: how `watch` and the bar formats show a filesystem.
extension BarOptions {
    public static let configKeys = [
        "warn", "critical", "hysteresis", "hide-below", "click-right", "label", "bar-width",
        "color-normal", "color-warning", "color-critical",
    ]

    /// Applies the [bar] section. `warn` and `critical` may repeat: any of their limits
    /// raises the level. Unknown keys are errors.
    public mutating func apply(_ file: ConfigFile) throws(ConfigError) {
        var warning: [AlertLimit] = []
        var critical: [AlertLimit] = []
        for entry in file.entries where entry.section == "bar" {
            do {
                try set(entry.key, entry.value, warning: &warning, critical: &critical)
            } catch {
                throw ConfigError(line: entry.line, message: error.message)
            }
        }
        if !warning.isEmpty { severity.warning = warning }
        if !critical.isEmpty { severity.critical = critical }
    }

    public struct SettingError: Error, Equatable {
        public var message: String
        public init(_ message: String) { self.message = message }
    }

    /// One bar setting, from the config file or the command line (`--warn 80%` …).
    public mutating func set(_ key: String, _ value: String, warning: inout [AlertLimit], critical: inout [AlertLimit]) throws(SettingError) {
        let shown = ControlCharacters.replaced(in: value)
        switch key {
        case "warn", "critical":
            let limit: AlertLimit
            do { limit = try AlertLimit.parse(value) } catch { throw SettingError("\(key): \(error)") }
            if key == "warn" { warning.append(limit) } else { critical.append(limit) }
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
