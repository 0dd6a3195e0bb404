/// How much attention a filesystem needs: the colour and urgency of its block.
public enum Severity: Int, Comparable, Sendable, CaseIterable {
    case normal
    case warning
    case critical

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rawValue < rhs.rawValue }

    public var name: String {
        switch self {
        case .normal: return "normal"
        case .warning: return "warning"
        case .critical: return "critical"
        }
    }

    /// The level `name` says, or nil.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }
}

/// One condition of an alert level: the used share at or above a percentage, or the free
/// space (available to the user) at or below a size.
public enum AlertLimit: Equatable, Sendable, CustomStringConvertible {
    case usedAtLeast(Fraction)
    case freeAtMost(bytes: UInt64)

    /// "80%" (used) or "5GB" (free).
    public init?(_ text: String) {
        guard let limit = try? Self.parse(text) else { return nil }
        self = limit
    }

    /// Why a limit was not understood, saying what would be right.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ text: String) throws(Failure) -> AlertLimit {
        let trimmed = text.filter { $0 != " " }
        let shown = ControlCharacters.replaced(in: text)
        if trimmed.hasSuffix("%") {
            do {
                return .usedAtLeast(try ThresholdParser.parse(trimmed))
            } catch .outOfRange {
                throw Failure(description: "'\(shown)' is over 100%: a used percentage is from 0% to 100%, such as 80%")
            } catch {
                throw Failure(description: "'\(shown)' is not a used percentage such as 80% (at most 12 decimals)")
            }
        }
        guard let bytes = ByteSizeParser.parse(trimmed) else {
            throw Failure(description: "'\(shown)' is neither a used percentage (80%) nor a free size (5GB, 500MiB)")
        }
        return .freeAtMost(bytes: bytes)
    }

    public var description: String {
        switch self {
        case .usedAtLeast(let fraction): return PercentText.oneDecimal(fraction, padded: false) + "% used"
        case .freeAtMost(let bytes): return ByteCountFormat.file(bytes) + " free"
        }
    }

    /// Whether `stats` meet the limit, moved by `slack` (a share of the filesystem) towards
    /// "met": how a level that is on stays on until the value has clearly left it.
    func isMet(by stats: FilesystemStats, slack: Fraction) -> Bool {
        guard let used = stats.usedFraction else { return false }
        switch self {
        case .usedAtLeast(let limit):
            // used ≥ limit − slack  ⇔  used + slack ≥ limit, all exact.
            let left = UInt128(used.numerator) * UInt128(limit.denominator) * UInt128(slack.denominator)
                + UInt128(slack.numerator) * UInt128(used.denominator) * UInt128(limit.denominator)
            let right = UInt128(limit.numerator) * UInt128(used.denominator) * UInt128(slack.denominator)
            return left >= right
        case .freeAtMost(let bytes):
            let extra = UInt128(stats.totalBytes) * UInt128(slack.numerator) / UInt128(slack.denominator)
            return UInt128(stats.freeBytes) <= UInt128(bytes) + extra
        }
    }
}

/// Warning and critical levels with hysteresis: a level comes on when one of its limits is
/// met, and goes off only once none is met even with `hysteresis` (a share of the
/// filesystem, default one percentage point) of slack, so a value hovering at a limit does
/// not make the block flap.
public struct SeverityPolicy: Equatable, Sendable {
    public var warning: [AlertLimit]
    public var critical: [AlertLimit]
    public var hysteresis: Fraction

    public static let defaultHysteresis = Fraction(numerator: 1, denominator: 100)

    public init(warning: [AlertLimit] = [], critical: [AlertLimit] = [], hysteresis: Fraction = SeverityPolicy.defaultHysteresis) {
        self.warning = warning
        self.critical = critical
        self.hysteresis = hysteresis
    }

    /// The limits where none are set: 80 % used is a warning, 90 % critical (duf starts at
    /// 50 %; ours start later, as bars do). `usedspace list` and the desktops use them.
    public static let standardWarning = AlertLimit.usedAtLeast(Fraction(numerator: 80, denominator: 100))
    public static let standardCritical = AlertLimit.usedAtLeast(Fraction(numerator: 90, denominator: 100))

    /// These limits, with the standard ones for a level that has none.
    public func withStandardLimits() -> SeverityPolicy {
        SeverityPolicy(warning: warning.isEmpty ? [Self.standardWarning] : warning,
                       critical: critical.isEmpty ? [Self.standardCritical] : critical, hysteresis: hysteresis)
    }

    public func severity(of stats: FilesystemStats?, previous: Severity) -> Severity {
        guard let stats else { return previous }
        let none = Fraction(numerator: 0, denominator: 1)
        if critical.contains(where: { $0.isMet(by: stats, slack: previous >= .critical ? hysteresis : none) }) { return .critical }
        if warning.contains(where: { $0.isMet(by: stats, slack: previous >= .warning ? hysteresis : none) }) { return .warning }
        // A critical level leaving towards warning keeps the warning limits' slack too.
        return .normal
    }
}
