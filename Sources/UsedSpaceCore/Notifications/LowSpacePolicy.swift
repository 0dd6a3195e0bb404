/// When to tell the user, on the desktop, that a filesystem is running out of space.
///
/// Like GNOME's housekeeping plugin, a filesystem is low when both its free share and its
/// free size are small (defaults ≤ 5 % and ≤ 1 GiB: a big disk at 5 % still has room, a
/// tiny one with 1 GiB left is not full), and a new notification comes only after a further
/// drop and a minimum period. Unlike it, "Ignore" snoozes for a set time and is remembered
/// across restarts and logins, and recovery (with a margin, so a value hovering at the limit
/// does not flap) closes the notification and forgets the snooze.
public struct LowSpacePolicy: Equatable, Sendable {
    public var enabled = true
    /// Low when the free share is at most this…
    public var freeShare = Fraction(numerator: 5, denominator: 100)
    /// …and the free size at most this.
    public var freeBytes: UInt64 = 1 << 30
    /// Notify again when the free share has dropped by this much more since the last time.
    public var furtherDrop = Fraction(numerator: 1, denominator: 100)
    /// …but not sooner than this after the last notification (seconds).
    public var minimumPeriod: Int64 = 600
    /// How long "Ignore" keeps it quiet (seconds).
    public var snooze: Int64 = 86_400
    /// Recovered once the free share is this much above `freeShare`, or the free size this
    /// much above `freeBytes` (a tenth of it, at least).
    public var recoveryMargin = Fraction(numerator: 1, denominator: 100)

    public init() {}

    /// The free share of a filesystem: what the user can still write over what they could
    /// have (df's basis), as an exact fraction.
    static func freeShare(of stats: FilesystemStats) -> Fraction? {
        guard stats.usableBlocks > 0 else { return nil }
        return Fraction(numerator: stats.availableBlocks, denominator: stats.usableBlocks)
    }

    func isLow(_ stats: FilesystemStats) -> Bool {
        guard let share = Self.freeShare(of: stats) else { return false }
        return !Self.greater(share, than: freeShare) && stats.freeBytes <= freeBytes
    }

    func hasRecovered(_ stats: FilesystemStats) -> Bool {
        guard let share = Self.freeShare(of: stats) else { return false }
        let shareLimit = Fraction(numerator: freeShare.numerator * recoveryMargin.denominator + recoveryMargin.numerator * freeShare.denominator,
                                  denominator: freeShare.denominator * recoveryMargin.denominator)
        // A limit near UInt64.max (free-size-below = 18000PB) must not overflow: nothing
        // is above it, so the size never says "recovered".
        let (sizeLimit, overflow) = freeBytes.addingReportingOverflow(max(freeBytes / 10, 1))
        return Self.greater(share, than: shareLimit) || (!overflow && stats.freeBytes > sizeLimit)
    }

    static func greater(_ a: Fraction, than b: Fraction) -> Bool {
        UInt128(a.numerator) * UInt128(b.denominator) > UInt128(b.numerator) * UInt128(a.denominator)
    }
}

/// What is remembered about one filesystem's low-space notification (persisted, so that a
/// snooze outlives a restart).
public struct LowSpaceNotificationState: Equatable, Sendable {
    /// A low-space notification has been shown and the space has not recovered since.
    public var active = false
    /// The free share when the user was last told, and when.
    public var notifiedFreeShare: Fraction?
    public var notifiedAt: Int64 = 0
    /// Quiet until then (seconds since the epoch), set by "Ignore".
    public var snoozedUntil: Int64 = 0

    public init() {}
}

/// What to do about one filesystem now.
public enum LowSpaceAction: Equatable, Sendable {
    case none
    /// Show (or replace) the notification.
    case notify(summary: String, body: String)
    /// Space is back: take the notification down.
    case withdraw
}

extension LowSpacePolicy {
    /// Decides from a fresh snapshot; returns the action and the alert state to keep.
    public func evaluate(_ snapshot: Snapshot, alert: LowSpaceNotificationState, now: Int64) -> (LowSpaceAction, LowSpaceNotificationState) {
        // Under a quota that binds, the room left is the quota's.
        guard enabled, snapshot.state == .fresh, let stats = snapshot.limitingStats, let share = Self.freeShare(of: stats) else {
            return (.none, alert)
        }
        // Nobody can free space on a read-only filesystem, nor fill it: GNOME's
        // housekeeping plugin skips them, and one remounted read-only takes its
        // notification down.
        if stats.readOnly { return alert.active ? (.withdraw, LowSpaceNotificationState()) : (.none, alert) }
        var next = alert
        if alert.active && hasRecovered(stats) {
            next = LowSpaceNotificationState()
            return (.withdraw, next)
        }
        guard isLow(stats) else { return (.none, alert) }
        if now < alert.snoozedUntil { return (.none, alert) }
        if alert.active, let last = alert.notifiedFreeShare {
            // share + drop ≤ last, exactly and without overflow: a block count times a
            // 12-decimal percentage does not fit in 64 bits.
            let droppedEnough = !Self.greater(share, than: last) && last.differs(from: share, byAtLeast: furtherDrop)
            guard droppedEnough, now - alert.notifiedAt >= minimumPeriod else { return (.none, alert) }
        }
        next.active = true
        next.notifiedFreeShare = share
        next.notifiedAt = now
        return (.notify(summary: Self.summary(snapshot), body: Self.body(stats, share: share, quota: snapshot.quota)), next)
    }

    /// "Ignore" from the notification: quiet until `now + snooze`.
    public func snoozed(_ alert: LowSpaceNotificationState, now: Int64) -> LowSpaceNotificationState {
        var next = alert
        next.snoozedUntil = now + snooze
        return next
    }

    static func summary(_ snapshot: Snapshot) -> String {
        "Low disk space on " + ControlCharacters.replaced(in: snapshot.mountPoint ?? snapshot.path)
    }

    static func body(_ stats: FilesystemStats, share: Fraction, quota: Quota? = nil) -> String {
        "Only \(ByteCountFormat.file(stats.freeBytes)) (\(PercentText.oneDecimal(share, padded: false))%) is free of "
            + (quota.map { "your \($0.kind.description) of \(ByteCountFormat.file($0.limitBytes))." } ?? "\(ByteCountFormat.file(stats.totalBytes)).")
    }
}
