/// How a filesystem is shown in a status bar (`watch` and bar formats), from the command line
/// and the [bar] section of the configuration file.
public struct BarOptions: Equatable, Sendable {
    /// Text before the bar, e.g. "~ " or "data: ".
    public var label = ""
    /// Cells of the progress bar; 0 shows the percentage only.
    public var barWidth = 10
    public var severity = SeverityPolicy()
    /// Hide the block while the used share is below this (the widget's setHasContent:).
    public var hideBelow: Fraction?
    /// Run on a right click (through /bin/sh), e.g. "baobab ~".
    public var rightClickCommand: String?
    /// Colours as #rrggbb; nil leaves the bar's default.
    public var normalColor: String?
    public var warningColor: String? = "#FFFF00"
    public var criticalColor: String? = "#FF0000"

    public init() {}

    public func color(for severity: Severity) -> String? {
        switch severity {
        case .normal: return normalColor
        case .warning: return warningColor
        case .critical: return criticalColor
        }
    }

    /// "#rgb" or "#rrggbb" (hex), as i3bar, i3blocks and polybar take it.
    public static func isColor(_ text: String) -> Bool {
        let digits = text.dropFirst()
        return text.hasPrefix("#") && (digits.count == 6 || digits.count == 3 || digits.count == 8)
            && digits.allSatisfy { $0.isHexDigit }
    }
}

extension BarOptions {
    /// With several filesystems in one bar, each block needs a name: the configured label,
    /// or else the watched path, the home directory written "~".
    public func labelled(for snapshot: Snapshot, among count: Int, home: String?) -> BarOptions {
        guard count > 1, label.isEmpty else { return self }
        var options = self
        var name = snapshot.path
        if let home, name == home || name.hasPrefix(home + "/") { name = "~" + name.dropFirst(home.count) }
        options.label = name + " "
        return options
    }
}
