import UsedSpaceCore

/// Shows and withdraws desktop notifications (DesktopNotifier, over the session bus). `key`
/// names one notification (a later one with the same key replaces it); `kind` and `path`
/// are for the log.
protocol NotificationPresenter: AnyObject {
    func show(key: String, kind: String, path: String, summary: String, body: String)
    func withdraw(key: String)
}

/// Asks who is filling the filesystem mounted at `mountPoint` (FillWriterQuestions, through
/// the helper); the answer comes later, on the loop, under `key`.
protocol WriterAsking: AnyObject {
    func ask(key: String, mountPoint: String)
}

/// Keeps a file's latest contents on disk (BackgroundFileWriter).
protocol FileKeeper: AnyObject {
    func write(_ contents: String)
}

/// Low-space notifications: for each published snapshot, whether to tell the user (the
/// policy, LowSpacePolicy), and what was told and snoozed, kept in the alerts file so that
/// an "Ignore" outlives a restart.
final class LowSpaceNotifications {
    var policy: LowSpacePolicy
    private var alerts: [String: LowSpaceNotificationState]
    private let presenter: NotificationPresenter
    private let file: FileKeeper
    private let logger: Logger

    init(policy: LowSpacePolicy, alerts: [String: LowSpaceNotificationState], presenter: NotificationPresenter, file: FileKeeper, logger: Logger) {
        self.policy = policy
        self.alerts = alerts
        self.presenter = presenter
        self.file = file
        self.logger = logger
    }

    /// Reads the alerts file's text; a broken file is reported and replaced at the next save.
    static func decode(_ text: String?, file: String, logger: Logger) -> [String: LowSpaceNotificationState] {
        guard let text else { return [:] }
        do {
            return try LowSpaceNotificationStateCodec.decode(text)
        } catch {
            logger.warning("ignoring the alerts file \(file), it will be replaced: \(error)", metadata: ["file": "\(file)", "reason": "\(error)"])
            return [:]
        }
    }

    /// `override`: the policy of the snapshot's [filesystem] section, over [notify].
    func check(_ snapshot: Snapshot, policy override: LowSpacePolicy? = nil, now: Int64) {
        let before = alerts[snapshot.path] ?? LowSpaceNotificationState()
        let (action, after) = (override ?? policy).evaluate(snapshot, alert: before, now: now)
        let place = ControlCharacters.replaced(in: snapshot.mountPoint ?? snapshot.path)
        switch action {
        case .none:
            break
        case .notify(let summary, let body):
            logger.notice("low disk space on \(place): \(body)", metadata: ["path": "\(snapshot.path)", "summary": "\(summary)"])
            presenter.show(key: snapshot.path, kind: "low-space", path: snapshot.path, summary: summary, body: body)
        case .withdraw:
            logger.notice("disk space recovered on \(place); notification withdrawn", metadata: ["path": "\(snapshot.path)"])
            presenter.withdraw(key: snapshot.path)
        }
        if after != before {
            alerts[snapshot.path] = after
            save()
        }
    }

    /// "Ignore" was chosen on the notification of `path`.
    func ignore(_ path: String, now: Int64) {
        alerts[path] = policy.snoozed(alerts[path] ?? LowSpaceNotificationState(), now: now)
        logger.info("low-space notification ignored; snoozing", metadata: ["path": "\(path)"])
        save()
    }

    func alert(for path: String) -> LowSpaceNotificationState? { alerts[path] }

    /// The daemon stopped watching `path` (unmounted): a notification about its space would
    /// speak of a filesystem that is gone, so it is taken down. A snooze is kept, for a disk
    /// that comes back.
    func retire(_ path: String) {
        guard var alert = alerts[path], alert.active else { return }
        alert.active = false
        alerts[path] = alert
        logger.notice("\(ControlCharacters.replaced(in: path)) is no longer watched; low-space notification withdrawn", metadata: ["path": "\(path)"])
        presenter.withdraw(key: path)
        save()
    }

    /// The alerts file read late (it answered after start-up): its entries (a snooze) for
    /// the paths this run has not decided on yet.
    func adopt(_ stored: [String: LowSpaceNotificationState]) {
        let missing = stored.filter { alerts[$0.key] == nil }
        guard !missing.isEmpty else { return }
        for (path, state) in missing { alerts[path] = state }
        save()
    }

    private func save() {
        file.write(LowSpaceNotificationStateCodec.encode(alerts))
    }
}
