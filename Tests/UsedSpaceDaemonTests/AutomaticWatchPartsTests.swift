import Testing
@testable import UsedSpaceCore
@testable import UsedSpaceDaemon

/// The daemon's parts of `path = auto`: the command line, a mount change as a plan, what an
/// unmount keeps and takes down.
@Suite struct AutomaticWatchPartsTests {
    @Test func pathAutoOnTheCommandLineReplacesTheConfiguredPathsAsAnyPathDoes() throws {
        var file = DaemonSettings()
        file.paths = ["/data"]
        let auto = try DaemonOptions.parse(["--path", "auto"])
        #expect(auto.followsMounts && auto.paths.isEmpty)
        let applied = auto.applied(to: file)
        #expect(applied.followsMounts && applied.paths.isEmpty)
        let both = try DaemonOptions.parse(["--path", "~", "--path=auto"]).applied(to: file)
        #expect(both.followsMounts && both.paths == ["~"])
        var automatic = DaemonSettings()
        automatic.followsMounts = true
        let explicit = try DaemonOptions.parse(["--path", "/srv"]).applied(to: automatic)
        #expect(!explicit.followsMounts && explicit.paths == ["/srv"], "--path without auto replaces the file's auto too")
        #expect(try DaemonOptions.parse([]).applied(to: automatic).followsMounts, "no --path: the file's auto stays")
        #expect(throws: UsageError.self) { try DaemonOptions.parse(["--path", "AUTO"]) }
    }

    /// A mount change is a plan with the same configuration: the explicit watches and the
    /// automatic ones still mounted stay the same objects.
    @Test func aMountChangeKeepsWhatStaysAndEndsWhatWasUnmounted() throws {
        let factory = try ReloadPlanTests.Factory()
        var configuration = ReloadPlanTests.configuration(["/"])
        configuration.daemon.followsMounts = true
        let running = try ReloadPlan.prepare(configuration, replacing: ConfiguredState(configuration: Configuration(), watches: [], textfile: nil),
                                             factory: factory, automatic: ["/tmp", "/proc"]).state
        #expect(running.watches.map(\.configuredPath) == ["/", "/tmp", "/proc"])
        #expect(running.automaticPaths == ["/tmp", "/proc"])
        let plan = try ReloadPlan.prepare(configuration, replacing: running, factory: factory, automatic: ["/tmp", "/dev"])
        #expect(plan.state.watches.map(\.configuredPath) == ["/", "/tmp", "/dev"])
        #expect(plan.state.watches[0] === running.watches[0] && plan.state.watches[1] === running.watches[1])
        #expect(plan.added.map(\.configuredPath) == ["/dev"])
        #expect(plan.removed.map(\.configuredPath) == ["/proc"])
        #expect(plan.state.automaticPaths == ["/tmp", "/dev"])
        // A mount point also configured explicitly is the explicit watch, once.
        let overlap = try ReloadPlan.prepare(configuration, replacing: plan.state, factory: factory, automatic: ["/", "/tmp"])
        #expect(overlap.state.watches.map(\.configuredPath) == ["/", "/tmp"])
        #expect(overlap.state.automaticPaths == ["/tmp"])
    }

    @Test func theHistoryOfAnUnmountedFilesystemIsKeptForAWeekWithAuto() {
        var tracker = TimeToFullTracker()
        _ = tracker.record(DaemonPartsTests.snapshot("/mnt/usb", at: 1_000_000))
        _ = tracker.record(DaemonPartsTests.snapshot("/mnt/old", at: 300_000))
        _ = tracker.record(DaemonPartsTests.snapshot("/home/u", at: 1_000_000))
        let now: Int64 = 1_000_000 + 3600
        let week = TimeToFullTracker.unmountedRetentionSeconds
        #expect(week == 604_800)
        let kept = HistoryFile.decode(tracker.encoded(keeping: ["/home/u"], recordedSince: now - week)).histories
        #expect(Set(kept.keys) == ["/home/u", "/mnt/usb"], "/mnt/old was last seen over a week before")
        let without = HistoryFile.decode(tracker.encoded(keeping: ["/home/u"])).histories
        #expect(Set(without.keys) == ["/home/u"], "without auto, a path no longer watched is forgotten")
    }

    @Test func anUnmountWithdrawsTheNotificationsOfTheFilesystem() {
        let presenter = DaemonPartsTests.Presenter(), keeper = DaemonPartsTests.Keeper()
        var policy = LowSpacePolicy()
        policy.freeShare = Fraction(numerator: 10, denominator: 100)
        policy.freeBytes = UInt64.max
        let alerts = LowSpaceNotifications(policy: policy, alerts: [:], presenter: presenter, file: keeper, logger: Logger(label: "test"))
        alerts.retire("/home/u")
        #expect(presenter.withdrawn.isEmpty && keeper.saved.isEmpty, "nothing was shown: nothing to take down")
        alerts.check(DaemonPartsTests.snapshot(available: 5), now: 1000)
        alerts.ignore("/home/u", now: 1010)
        alerts.retire("/home/u")
        #expect(presenter.withdrawn == ["/home/u"])
        #expect(alerts.alert(for: "/home/u")?.active == false)
        #expect(alerts.alert(for: "/home/u")?.snoozedUntil ?? 0 > 1010, "the snooze outlives the unmount")
        alerts.retire("/home/u")
        #expect(presenter.withdrawn == ["/home/u"], "once")
    }
}
