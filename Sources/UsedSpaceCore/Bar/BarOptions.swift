/// How a filesystem is shown in a status bar and in the text format: from the command line,
/// the [bar] section of the configuration file, and a [filesystem PATH] section for it.
public struct BarOptions: Equatable, Sendable {
    /// Text before the bar, e.g. "~ " or "data: " (`{label}` in templates).
    public var label = ""
    /// Cells of the progress bar; 0 shows the percentage only; nil: the format's default
    /// (10 in the bars, 20 in the text format).
    public var barWidth: Int?
    public var glyphs = BarGlyphs.blocks
    /// How sizes are written where a placeholder names no unit.
    public var unit = SizeUnit.file
    /// The icon ramp of `{icon}`, by used share.
    public var icons: [String] = []
    public var templates = BarTemplates()
    public var severity = SeverityPolicy()
    /// Hide the block while the used share is below this (the widget's setHasContent:).
    public var hideBelow: Fraction?
    /// Never show this filesystem in a bar (a [filesystem] section's `hidden = yes`).
    public var hidden = false
    /// Run on a right click (through /bin/sh), e.g. "baobab ~".
    public var rightClickCommand: String?
    /// Colours as #rrggbb; nil leaves the bar's default.
    public var normalColor: String?
    public var warningColor: String? = "#FFFF00"
    public var criticalColor: String? = "#FF0000"

    public static let defaultBarWidth = 10

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

    /// What placeholders are filled from, with `barCells` for a `{bar}` without a number.
    public func templateContext(_ snapshot: Snapshot, barCells: Int) -> TemplateContext {
        TemplateContext(snapshot: snapshot, label: label, unit: unit, barCells: barCells, glyphs: glyphs, icons: icons)
    }
}

/// The user's templates, by the state of the filesystem; nil where none is set (the
/// format's own text then shows). An empty template hides the block.
public struct BarTemplates: Equatable, Sendable {
    public var normal: Template?
    public var warning: Template?
    public var critical: Template?
    public var stale: Template?
    public var failed: Template?
    public var notMounted: Template?
    /// While the used share is below `hide-below`; without one the block is hidden.
    public var below: Template?
    /// The details (Used, Free, Total…), a template per line.
    public var details: [Template]?

    public init() {}

    /// Whether the user set a template for the block's own text (not only its details).
    public var setsText: Bool {
        normal != nil || warning != nil || critical != nil || stale != nil || below != nil
    }

    /// The user's template for a filesystem with numbers at `severity`, or nil.
    public func forLevel(_ severity: Severity) -> Template? {
        switch severity {
        case .normal: return normal
        case .warning: return warning ?? normal
        case .critical: return critical ?? normal
        }
    }

    /// The user's template for a filesystem without numbers, or nil.
    public func forFailure(notMounted isNotMounted: Bool) -> Template? {
        isNotMounted ? notMounted ?? failed : failed
    }

    /// The details lines: a line is left out when it has placeholders and all of them are
    /// empty (a trend that is not known, inodes a filesystem does not have).
    public static func lines(_ templates: [Template], _ context: TemplateContext) -> [String] {
        templates.compactMap { template in
            let (text, showsAnything) = template.render(context)
            return template.hasPlaceholders && !showsAnything ? nil : text
        }
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
