/// The level of a filesystem (normal, warning, critical): the rule, in one place. The daemon
/// decides it at each publish and the snapshot carries it to every view (the status line,
/// JSON's `severity`, the bars' colours, D-Bus's `Severity`, both desktops); a client without
/// a daemon decides it here too, with no history, as a first publish would.
public enum FilesystemLevel {
    /// `limits` are the filesystem's ([bar] or its [filesystem] section), with `usedspace
    /// list`'s 80 % and 90 % for a level that has none; judged on what the user runs into
    /// first (Snapshot.limitingStats: a quota that binds), with the hysteresis from
    /// `previous` (nil: no history); then raised by what df cannot show (SpaceAlert: a fast
    /// fill, btrfs metadata that cannot grow). Without numbers the level stays `previous`.
    public static func decide(_ snapshot: Snapshot, limits: SeverityPolicy, previous: Severity?) -> Severity {
        let own = ofLimits(snapshot.limitingStats, limits: limits, previous: previous)
        return max(own, snapshot.spaceAlerts.first?.severity ?? .normal)
    }

    /// The level the snapshot carries; for one without (a client's own sample, an older
    /// daemon's), the level a first publish would decide.
    public static func carried(by snapshot: Snapshot, limits: SeverityPolicy) -> Severity {
        snapshot.level ?? decide(snapshot, limits: limits, previous: nil)
    }

    /// The limits' part alone, on figures without a snapshot (`usedspace list`'s rows).
    public static func ofLimits(_ stats: FilesystemStats?, limits: SeverityPolicy, previous: Severity?) -> Severity {
        limits.withStandardLimits().severity(of: stats, previous: previous ?? .normal)
    }
}

extension SeverityPolicy {
    /// Whether both judge alike: the same limits (by value, in any order; the standard ones
    /// standing in for a level without) and the same hysteresis.
    public func judgesLike(_ other: SeverityPolicy) -> Bool {
        let mine = withStandardLimits(), theirs = other.withStandardLimits()
        func same(_ a: [AlertLimit], _ b: [AlertLimit]) -> Bool {
            a.allSatisfy { limit in b.contains { $0.hasValue(of: limit) } } && b.allSatisfy { limit in a.contains { $0.hasValue(of: limit) } }
        }
        return same(mine.warning, theirs.warning) && same(mine.critical, theirs.critical)
            && Self.equal(mine.hysteresis, theirs.hysteresis)
    }

    static func equal(_ a: Fraction, _ b: Fraction) -> Bool {
        UInt128(a.numerator) * UInt128(b.denominator) == UInt128(b.numerator) * UInt128(a.denominator)
    }
}

extension AlertLimit {
    /// The same limit, however written ("80%" and "80.0%").
    func hasValue(of other: AlertLimit) -> Bool {
        switch (self, other) {
        case (.usedAtLeast(let a), .usedAtLeast(let b)): return SeverityPolicy.equal(a, b)
        case (.freeAtMost(let a), .freeAtMost(let b)): return a == b
        default: return false
        }
    }
}
