import UsedSpaceCore

/// Desktop notifications of what df cannot show (SpaceAlert: a fast fill, btrfs metadata
/// that cannot grow), one per filesystem and kind: shown when the alert starts or becomes
/// more severe, taken down when it ends. An alert that comes back within the [notify]
/// minimum period is not shown again (a fill that pauses and resumes is one fill), and
/// "Ignore" keeps that kind quiet for the filesystem for the [notify] snooze. What was shown
/// and snoozed is kept in memory only: after a restart an alert still on is shown once more.
///
/// A fast fill's notification names who is filling the disk: with `writers` set, it is held
/// until they answer (within their deadline), then shown with their answer, or as it is
/// when they do not know. A fill that ends before the answer is never shown.
final class SpaceAlertNotifications {
    var policy: LowSpacePolicy
    private let presenter: NotificationPresenter
    /// FillWriterNaming, which shares its question with the snapshots (nil: notifications
    /// never name the writer).
    var writers: WriterAsking?
    /// Fast-fill notifications waiting for their writers, by key.
    private var held: [String: (alert: SpaceAlert, path: String, place: String)] = [:]
    private let logger: Logger
    /// By key (SpaceAlertNotifications.key): the severity shown, while the alert is on.
    private var active: [String: Severity] = [:]
    private var notifiedAt: [String: Int64] = [:]
    private var snoozedUntil: [String: Int64] = [:]

    init(policy: LowSpacePolicy, presenter: NotificationPresenter, logger: Logger) {
        self.policy = policy
        self.presenter = presenter
        self.logger = logger
    }

    /// The notification's key: the kind, a NUL (which no path contains), the path.
    static func key(_ kind: SpaceAlert.Kind, path: String) -> String { kind.rawValue + "\u{0}" + path }

    /// The kind and path of a key made by `key`, or nil for another key (a low-space one).
    static func parse(_ key: String) -> (kind: SpaceAlert.Kind, path: String)? {
        guard let separator = key.firstIndex(of: "\u{0}"), let kind = SpaceAlert.Kind(rawValue: String(key[..<separator])) else { return nil }
        return (kind, String(key[key.index(after: separator)...]))
    }

    /// Decides from a fresh snapshot; stale or failed ones say nothing new about the space.
    func check(_ snapshot: Snapshot, now: Int64) {
        guard policy.enabled, snapshot.state == .fresh else { return }
        let alerts = snapshot.spaceAlerts
        for kind in SpaceAlert.Kind.allCases {
            let key = Self.key(kind, path: snapshot.path)
            guard let alert = alerts.first(where: { $0.kind == kind }) else {
                held[key] = nil
                if active.removeValue(forKey: key) != nil {
                    logger.notice("\(kind.rawValue) alert on \(ControlCharacters.replaced(in: snapshot.mountPoint ?? snapshot.path)) is over; notification withdrawn",
                                  metadata: ["path": "\(snapshot.path)", "kind": "\(kind.rawValue)"])
                    presenter.withdraw(key: key)
                }
                continue
            }
            let shownBefore = active[key]
            active[key] = max(shownBefore ?? alert.severity, alert.severity)
            if let shownBefore, alert.severity <= shownBefore { continue }
            if now < snoozedUntil[key] ?? 0 { continue }
            // A new episode soon after the last one (a fill that paused): the same news.
            if shownBefore == nil, let last = notifiedAt[key], now - last < policy.minimumPeriod { continue }
            notifiedAt[key] = now
            logger.notice("\(alert.summary): \(alert.detail)", metadata: [
                "path": "\(snapshot.path)", "kind": "\(kind.rawValue)", "severity": "\(alert.severity.name)", "reason": "\(alert.detail)",
            ])
            if kind == .fastFill, let writers, let mountPoint = snapshot.mountPoint {
                held[key] = (alert, snapshot.path, ControlCharacters.replaced(in: mountPoint))
                writers.ask(key: key, mountPoint: mountPoint)
                continue
            }
            presenter.show(key: key, kind: kind.rawValue, path: snapshot.path, summary: alert.summary, body: alert.body)
        }
    }

    /// The writers of the fill whose notification is held under `key` (nil: not known): it
    /// is shown now, unless the fill has ended (or a reload turned notifications off) meanwhile.
    func writersFound(_ found: FillWriters?, key: String) {
        guard let (alert, path, place) = held.removeValue(forKey: key), active[key] != nil, policy.enabled else { return }
        var shown = alert
        if let found {
            shown = alert.naming(found)
            let who = SpaceDetailsText.writerTexts(found).joined(separator: "; ")
            logger.notice("filling \(place): \(who)", metadata: ["path": "\(path)", "kind": "\(alert.kind.rawValue)", "writers": "\(who)"])
        }
        presenter.show(key: key, kind: alert.kind.rawValue, path: path, summary: shown.summary, body: shown.body)
    }

    /// The daemon stopped watching `path` (unmounted): its notifications are taken down.
    func retire(_ path: String) {
        for kind in SpaceAlert.Kind.allCases { held[Self.key(kind, path: path)] = nil }
        for kind in SpaceAlert.Kind.allCases where active.removeValue(forKey: Self.key(kind, path: path)) != nil {
            presenter.withdraw(key: Self.key(kind, path: path))
        }
    }

    /// "Ignore" was chosen on the notification with `key`.
    func ignore(_ key: String, now: Int64) {
        guard let (kind, path) = Self.parse(key) else { return }
        snoozedUntil[key] = now + policy.snooze
        logger.info("\(kind.rawValue) notification ignored; snoozing", metadata: ["path": "\(path)", "kind": "\(kind.rawValue)"])
    }
}
