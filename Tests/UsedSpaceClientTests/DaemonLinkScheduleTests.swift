import Testing
@testable import UsedSpaceClient

/// When `watch` talks to the daemon and when it samples by itself, driven by events and an
/// injected clock (nanoseconds).
@Suite struct DaemonLinkScheduleTests {
    static let second: UInt64 = 1_000_000_000
    static let millisecond: UInt64 = 1_000_000

    @Test func withoutADaemonItSamplesAtOnceAndLooksForOneEveryInterval() {
        var schedule = DaemonLinkSchedule(daemonWanted: true, intervalNanoseconds: 5 * Self.second)
        #expect(schedule.connectFailed(at: 0) == .sampleHere)
        #expect(schedule.deadline == 5 * Self.second)
        #expect(schedule.due(at: 4 * Self.second) == nil)
        #expect(schedule.due(at: 5 * Self.second) == .connect)
        #expect(schedule.connectFailed(at: 5 * Self.second) == nil, "already sampling")
        #expect(schedule.deadline == 10 * Self.second)
    }

    /// A daemon that accepts but does not answer within a second (stopped, or restarting
    /// slowly): sample here, and take its answer whenever it comes, not one interval later.
    @Test func aDaemonThatAcceptsButDoesNotAnswerIsSampledAroundAndFollowedWhenItAnswers() {
        var schedule = DaemonLinkSchedule(daemonWanted: true, intervalNanoseconds: 5 * Self.second)
        schedule.subscribed(at: 100)
        #expect(schedule.deadline == 100 + Self.second)
        #expect(schedule.due(at: 100 + Self.second - 1) == nil)
        #expect(schedule.due(at: 100 + Self.second) == .sampleHere)
        #expect(schedule.phase == .awaitingLateAnswer && schedule.awaitsLateAnswer)
        #expect(schedule.deadline == nil, "the subscription stays open: no reconnecting meanwhile")
        schedule.answered()
        #expect(schedule.phase == .subscribed)
    }

    /// The daemon awaited closed the connection without answering (it was stopping, as in a
    /// restart): reconnected to at once, without marking the numbers sampled here stale.
    @Test func aDaemonAwaitedThatClosesIsReconnectedToAtOnce() {
        var schedule = DaemonLinkSchedule(daemonWanted: true, intervalNanoseconds: 5 * Self.second)
        schedule.subscribed(at: 0)
        _ = schedule.due(at: Self.second)
        let (markStale, action) = schedule.closed(at: 2 * Self.second)
        #expect(!markStale && action == nil)
        #expect(schedule.deadline == 2 * Self.second + 100 * Self.millisecond)
    }

    /// A daemon restart: stale at once, reconnect after 100 ms, then 200, 400, 800, 1600, 2000
    /// ms; after the last attempt, sample here (and keep looking every interval).
    @Test func aDaemonThatWentAwayIsReconnectedToAtOnceThenMoreSlowly() {
        var schedule = DaemonLinkSchedule(daemonWanted: true, intervalNanoseconds: 5 * Self.second)
        schedule.subscribed(at: 0)
        schedule.answered()
        #expect(schedule.deadline == nil, "subscribed: only events move it on")
        var now: UInt64 = 10 * Self.second
        let (markStale, action) = schedule.closed(at: now)
        #expect(markStale && action == nil)
        var waits: [UInt64] = []
        while case .reconnecting(_, let at) = schedule.phase {
            waits.append((at - now) / Self.millisecond)
            now = at
            #expect(schedule.due(at: now) == .connect)
            if schedule.connectFailed(at: now) == .sampleHere { break }
        }
        #expect(waits == [100, 200, 400, 800, 1600, 2000])
        #expect(schedule.phase == .sampling(nextProbe: now + 5 * Self.second))
    }

    @Test func aReconnectionThatSucceedsIsSubscribedAgain() {
        var schedule = DaemonLinkSchedule(daemonWanted: true, intervalNanoseconds: 5 * Self.second)
        schedule.subscribed(at: 0)
        schedule.answered()
        _ = schedule.closed(at: Self.second)
        #expect(schedule.due(at: Self.second + 100 * Self.millisecond) == .connect)
        schedule.subscribed(at: Self.second + 100 * Self.millisecond)
        schedule.answered()
        #expect(schedule.phase == .subscribed)
        // A second restart starts the delays over.
        _ = schedule.closed(at: 20 * Self.second)
        #expect(schedule.deadline == 20 * Self.second + 100 * Self.millisecond)
    }

    @Test func aDaemonThatDoesNotWatchThePathIsNotAskedAgain() {
        var schedule = DaemonLinkSchedule(daemonWanted: true, intervalNanoseconds: 5 * Self.second)
        schedule.subscribed(at: 0)
        #expect(schedule.refused(at: 0, forGood: true) == .sampleHere)
        #expect(schedule.deadline == nil)
        var busy = DaemonLinkSchedule(daemonWanted: true, intervalNanoseconds: 5 * Self.second)
        busy.subscribed(at: 0)
        #expect(busy.refused(at: 0, forGood: false) == .sampleHere)
        #expect(busy.deadline == 5 * Self.second, "a busy daemon is asked again later")
    }

    @Test func noDaemonWantedMeansNoProbing() {
        let schedule = DaemonLinkSchedule(daemonWanted: false, intervalNanoseconds: 5 * Self.second)
        #expect(schedule.phase == .sampling(nextProbe: nil))
        #expect(schedule.deadline == nil)
    }
}
