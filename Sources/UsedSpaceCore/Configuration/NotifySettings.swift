/// The [notify] section: desktop notifications when space runs low.
extension LowSpacePolicy {
    public static let configKeys = ["enabled", "free-below", "free-size-below", "again-after-drop", "minimum-period", "snooze"]

    public mutating func apply(_ file: ConfigFile) throws(ConfigError) {
        for entry in file.entries where entry.section == "notify" {
            let shown = ControlCharacters.replaced(in: entry.value)
            func percent() throws(ConfigError) -> Fraction {
                guard entry.value.hasSuffix("%"), let fraction = try? ThresholdParser.parse(entry.value) else {
                    throw ConfigError(line: entry.line, message: "\(entry.key): '\(shown)' is not a percentage such as 5%")
                }
                return fraction
            }
            func seconds(_ range: ClosedRange<UInt64>) throws(ConfigError) -> Int64 {
                guard let microseconds = DurationParser.microseconds(entry.value), range.contains(microseconds) else {
                    throw ConfigError(line: entry.line, message: "\(entry.key): '\(shown)' is not a duration from \(DurationParser.describe(microseconds: range.lowerBound)) to \(DurationParser.describe(microseconds: range.upperBound))")
                }
                return Int64(microseconds / 1_000_000)
            }
            switch entry.key {
            case "enabled":
                switch entry.value.lowercased() {
                case "yes", "true", "on", "1": enabled = true
                case "no", "false", "off", "0": enabled = false
                default: throw ConfigError(line: entry.line, message: "enabled: '\(shown)' is not yes or no")
                }
            case "free-below": freeShare = try percent()
            case "free-size-below":
                guard let bytes = ByteSizeParser.parse(entry.value) else {
                    throw ConfigError(line: entry.line, message: "free-size-below: '\(shown)' is not a size such as 1GiB")
                }
                freeBytes = bytes
            case "again-after-drop": furtherDrop = try percent()
            case "minimum-period": minimumPeriod = try seconds(1_000_000...604_800_000_000)
            case "snooze": snooze = try seconds(60_000_000...31_536_000_000_000)
            default:
                throw ConfigError(line: entry.line, message: "unknown key '\(ControlCharacters.replaced(in: entry.key))' in [notify]; the keys are \(LowSpacePolicy.configKeys.joined(separator: ", "))")
            }
        }
    }
}
