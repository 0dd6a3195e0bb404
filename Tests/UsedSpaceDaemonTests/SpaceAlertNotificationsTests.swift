import Testing
@testable import UsedSpaceCore
@testable import UsedSpaceDaemon

/// Notifications of fast fills and btrfs metadata: when one is shown, replaced, withdrawn,
/// held back and snoozed.
@Suite struct SpaceAlertNotificationsTests {
    final class Presenter: NotificationPresenter {
        var shown: [(key: String, summary: String)] = []
        var withdrawn: [String] = []
        func show(key: String, kind: String, path: String, summary: String, body: String) { shown.append((key, summary)) }
        func withdraw(key: String) { withdrawn.append(key) }
    }

    static func filling(_ secondsToFull: Int64?, state: SnapshotState = .fresh) -> Snapshot {
        var snapshot = DaemonPartsTests.snapshot("/data", state: state)
        snapshot.fastFill = secondsToFull.map { FastFill(bytesPerSecond: 50_000_000, secondsToFull: $0, sustainedSeconds: 30) }
        return snapshot
    }

    @Test func aFillIsShownOnceRaisedOnceAndWithdrawnWhenItStops() {
        let presenter = Presenter()
        let notifications = SpaceAlertNotifications(policy: LowSpacePolicy(), presenter: presenter, logger: Logger(label: "test"))
        let key = SpaceAlertNotifications.key(.fastFill, path: "/data")
        notifications.check(Self.filling(1800), now: 0)
        notifications.check(Self.filling(1700), now: 5)
        #expect(presenter.shown.map(\.summary) == ["Disk filling fast on /home"])
        // Full within 10 minutes: more severe, shown again (replacing it).
        notifications.check(Self.filling(500), now: 10)
        notifications.check(Self.filling(400), now: 15)
        #expect(presenter.shown.count == 2 && presenter.shown.allSatisfy { $0.key == key })
        // A stale snapshot says nothing; a fresh one without the fill ends it.
        notifications.check(Self.filling(nil, state: .stale), now: 20)
        #expect(presenter.withdrawn.isEmpty)
        notifications.check(Self.filling(nil), now: 25)
        #expect(presenter.withdrawn == [key])
        // Back within the minimum period (10 minutes): the same fill, paused; not shown again.
        notifications.check(Self.filling(1800), now: 100)
        #expect(presenter.shown.count == 2)
        notifications.check(Self.filling(nil), now: 105)
        notifications.check(Self.filling(1800), now: 10 + 601)
        #expect(presenter.shown.count == 3)
    }

    @Test func ignoreSnoozesThatKindOfThatFilesystemOnly() throws {
        let presenter = Presenter()
        var policy = LowSpacePolicy()
        policy.snooze = 3600
        let notifications = SpaceAlertNotifications(policy: policy, presenter: presenter, logger: Logger(label: "test"))
        notifications.ignore(SpaceAlertNotifications.key(.fastFill, path: "/data"), now: 0)
        notifications.ignore("/data", now: 0)  // a low-space key: not ours, nothing happens
        notifications.check(Self.filling(100), now: 10)
        var other = Self.filling(100)
        other.path = "/srv"
        notifications.check(other, now: 10)
        #expect(presenter.shown.map(\.key) == [SpaceAlertNotifications.key(.fastFill, path: "/srv")])
        notifications.check(Self.filling(nil), now: 20)
        notifications.check(Self.filling(100), now: 3601)
        #expect(presenter.shown.count == 2)
        #expect(SpaceAlertNotifications.parse(SpaceAlertNotifications.key(.btrfsMetadata, path: "/a\u{0}b"))?.path == "/a\u{0}b")
        #expect(SpaceAlertNotifications.parse("/home/u") == nil)
        #expect(SpaceAlertNotifications.parse("nonsense\u{0}/x") == nil)
    }

    @Test func disabledNotificationsShowNothing() {
        let presenter = Presenter()
        var policy = LowSpacePolicy()
        policy.enabled = false
        SpaceAlertNotifications(policy: policy, presenter: presenter, logger: Logger(label: "test")).check(Self.filling(100), now: 0)
        #expect(presenter.shown.isEmpty)
    }
}

/// A fast fill's notification held for its writers: shown with them when they answer, as
/// before when they do not know, never when the fill ended first.
@Suite struct FillWriterNotificationTests {
    final class Presenter: NotificationPresenter {
        var shown: [(key: String, body: String)] = []
        var withdrawn: [String] = []
        func show(key: String, kind: String, path: String, summary: String, body: String) { shown.append((key, body)) }
        func withdraw(key: String) { withdrawn.append(key) }
    }

    final class Asker: WriterAsking {
        var asked: [(key: String, mountPoint: String)] = []
        func ask(key: String, mountPoint: String) { asked.append((key, mountPoint)) }
    }

    static func notifications() -> (SpaceAlertNotifications, Presenter, Asker) {
        let presenter = Presenter(), asker = Asker()
        let notifications = SpaceAlertNotifications(policy: LowSpacePolicy(), presenter: presenter, logger: Logger(label: "test"))
        notifications.writers = asker
        return (notifications, presenter, asker)
    }

    @Test func theNotificationWaitsForItsWriters() {
        let (notifications, presenter, asker) = Self.notifications()
        let key = SpaceAlertNotifications.key(.fastFill, path: "/data")
        notifications.check(SpaceAlertNotificationsTests.filling(1800), now: 0)
        #expect(presenter.shown.isEmpty && asker.asked.map(\.mountPoint) == ["/home"])
        let writer = FillWriter(pid: 4242, command: "python3", bytesPerSecond: 50_000_000, file: "/home/u/x.iso")
        notifications.writersFound(FillWriters([writer], sawGrowth: true, home: "/home/u"), key: key)
        #expect(presenter.shown.count == 1 && presenter.shown[0].body.hasSuffix(" Writing: python3 (pid 4242) writing ~/x.iso, 50 MB/s."))
        // An answer nobody waits for (a second one) shows nothing.
        notifications.writersFound(FillWriters([], sawGrowth: true, home: nil), key: key)
        #expect(presenter.shown.count == 1)
        // More severe: asked again, and shown again with the new answer.
        notifications.check(SpaceAlertNotificationsTests.filling(300), now: 5)
        #expect(asker.asked.count == 2)
        notifications.writersFound(FillWriters([], sawGrowth: true, home: "/home/u"), key: key)
        #expect(presenter.shown.last?.body.hasSuffix(" Writing: another user or the system.") == true)
    }

    @Test func withoutAnAnswerItIsShownAsBefore() {
        let (notifications, presenter, _) = Self.notifications()
        let key = SpaceAlertNotifications.key(.fastFill, path: "/data")
        notifications.check(SpaceAlertNotificationsTests.filling(1800), now: 0)
        notifications.writersFound(nil, key: key)
        #expect(presenter.shown.count == 1 && !presenter.shown[0].body.contains("Writing"))
        #expect(presenter.shown[0].body.hasPrefix("Space is going at 50 MB/s"))
    }

    @Test func aFillThatEndsBeforeTheAnswerIsNeverShown() {
        let (notifications, presenter, _) = Self.notifications()
        let key = SpaceAlertNotifications.key(.fastFill, path: "/data")
        notifications.check(SpaceAlertNotificationsTests.filling(1800), now: 0)
        notifications.check(SpaceAlertNotificationsTests.filling(nil), now: 1)
        notifications.writersFound(FillWriters([], sawGrowth: true, home: nil), key: key)
        #expect(presenter.shown.isEmpty)
        notifications.check(SpaceAlertNotificationsTests.filling(1800), now: 1000)
        notifications.retire("/data")
        notifications.writersFound(FillWriters([], sawGrowth: true, home: nil), key: key)
        #expect(presenter.shown.isEmpty)
    }
}
