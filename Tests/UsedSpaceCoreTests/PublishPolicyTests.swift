import Testing
@testable import UsedSpaceCore

@Suite struct PublishPolicyTests {
    static let time = Timestamp(secondsSinceEpoch: 1_700_000_000)

    /// A filesystem of `usable` blocks (no reserve) with `used` of them in use.
    static func measurement(used: UInt64, usable: UInt64, path: String = "/home/u", mountPoint: String = "/home",
                            type: String = "ext4", blockSize: UInt64 = 4096) -> Measurement {
        Measurement(path: path, mountPoint: mountPoint, fileSystemType: type,
                    stats: FilesystemStats(blockSize: blockSize, totalBlocks: usable, freeBlocks: usable - used, availableBlocks: usable - used),
                    sampledAt: time)
    }

    static func published(used: UInt64, usable: UInt64) -> Snapshot {
        Snapshot(measurement(used: used, usable: usable), seq: 1, source: .daemon)
    }

    static func decide(from previous: Snapshot?, used: UInt64, usable: UInt64, threshold: Fraction = PublishPolicy.defaultThreshold) -> PublishDecision {
        PublishPolicy(threshold: threshold).decide(previous: previous, sample: .measured(measurement(used: used, usable: usable)))
    }

    @Test func firstSampleIsNewData() {
        #expect(Self.decide(from: nil, used: 1, usable: 10) == .newData)
    }

    // 35.00 % → ±0.01 percentage point, on a filesystem of one million blocks (1 block = 0.0001 %).
    @Test func justBelowTheThresholdUpIsNoData() {
        #expect(Self.decide(from: Self.published(used: 350_000, usable: 1_000_000), used: 350_099, usable: 1_000_000) == .noData)
    }

    @Test func exactlyAtTheThresholdUpIsNewData() {
        #expect(Self.decide(from: Self.published(used: 350_000, usable: 1_000_000), used: 350_100, usable: 1_000_000) == .newData)
    }

    @Test func justAboveTheThresholdUpIsNewData() {
        #expect(Self.decide(from: Self.published(used: 350_000, usable: 1_000_000), used: 350_101, usable: 1_000_000) == .newData)
    }

    /// The widget's bug: it compared `new − old < 0.0001`, so freeing space never counted.
    @Test func justBelowTheThresholdDownIsNoData() {
        #expect(Self.decide(from: Self.published(used: 350_000, usable: 1_000_000), used: 349_901, usable: 1_000_000) == .noData)
    }

    @Test func exactlyAtTheThresholdDownIsNewData() {
        #expect(Self.decide(from: Self.published(used: 350_000, usable: 1_000_000), used: 349_900, usable: 1_000_000) == .newData)
    }

    @Test func justAboveTheThresholdDownIsNewData() {
        #expect(Self.decide(from: Self.published(used: 350_000, usable: 1_000_000), used: 349_899, usable: 1_000_000) == .newData)
    }

    /// 0.0026 − 0.0025 in doubles is just below 0.0001 (so are three in four such steps of
    /// one block in 10,000): exact arithmetic keeps "exactly at" publishing.
    @Test func exactlyAtTheThresholdWhereDoublesRoundBelow() {
        #expect(26.0 / 10_000 - 25.0 / 10_000 < 0.0001)
        #expect(Self.decide(from: Self.published(used: 25, usable: 10_000), used: 26, usable: 10_000) == .newData)
        #expect(Self.decide(from: Self.published(used: 26, usable: 10_000), used: 25, usable: 10_000) == .newData)
    }

    @Test func noChangeIsNoData() {
        #expect(Self.decide(from: Self.published(used: 12_345, usable: 99_999), used: 12_345, usable: 99_999) == .noData)
    }

    @Test func aCustomThreshold() {
        let onePercent = Fraction(numerator: 1, denominator: 100)
        let previous = Self.published(used: 500, usable: 1000)
        #expect(Self.decide(from: previous, used: 509, usable: 1000, threshold: onePercent) == .noData)
        #expect(Self.decide(from: previous, used: 510, usable: 1000, threshold: onePercent) == .newData)
        #expect(Self.decide(from: previous, used: 490, usable: 1000, threshold: onePercent) == .newData)
    }

    @Test func zeroThresholdPublishesEverySample() {
        let previous = Self.published(used: 500, usable: 1000)
        #expect(Self.decide(from: previous, used: 500, usable: 1000, threshold: Fraction(numerator: 0, denominator: 1)) == .newData)
    }

    @Test func aDifferentMountIsNewData() {
        let previous = Self.published(used: 500, usable: 1000)
        let moved = Self.measurement(used: 500, usable: 1000, mountPoint: "/")
        #expect(PublishPolicy().decide(previous: previous, sample: .measured(moved)) == .newData)
        let retyped = Self.measurement(used: 500, usable: 1000, type: "xfs")
        #expect(PublishPolicy().decide(previous: previous, sample: .measured(retyped)) == .newData)
    }

    @Test func aResizedFilesystemIsNewData() {
        let previous = Self.published(used: 500, usable: 1000)
        #expect(Self.decide(from: previous, used: 1000, usable: 2000) == .newData)
    }

    @Test func failureAfterSuccessIsFailedAndRecoveryIsNewData() {
        let previous = Self.published(used: 500, usable: 1000)
        let failure = Sample.failed(.pathNotFound(path: "/home/u"), path: "/home/u", mountPoint: nil, fileSystemType: nil, at: Self.time)
        #expect(PublishPolicy().decide(previous: previous, sample: failure) == .failed)

        var publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        publisher.accept(.measured(Self.measurement(used: 500, usable: 1000)))
        #expect(publisher.accept(failure) == .failed)
        #expect(publisher.current?.state == .failed)
        #expect(publisher.accept(failure) == .noData)
        #expect(publisher.accept(.measured(Self.measurement(used: 500, usable: 1000))) == .newData)
        #expect(publisher.current?.state == .fresh)
    }

    @Test func aDifferentFailureIsPublished() {
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        publisher.accept(.failed(.pathNotFound(path: "/x"), path: "/x", mountPoint: nil, fileSystemType: nil, at: Self.time))
        #expect(publisher.accept(.failed(.permissionDenied(path: "/x"), path: "/x", mountPoint: nil, fileSystemType: nil, at: Self.time)) == .failed)
        #expect(publisher.current?.error == "/x: permission denied")
    }

    @Test func aTimeoutKeepsTheNumbersAndMarksThemStale() {
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        publisher.accept(.measured(Self.measurement(used: 500, usable: 1000)))
        let timeout = Sample.failed(.timedOut(path: "/home/u", seconds: 5), path: "/home/u", mountPoint: "/home", fileSystemType: "ext4", at: Self.time)
        #expect(publisher.accept(timeout) == .failed)
        #expect(publisher.current?.state == .stale)
        #expect(publisher.current?.stats?.usedBlocks == 500)
        #expect(publisher.current?.seq == 2)
        #expect(publisher.accept(timeout) == .noData)
        #expect(publisher.accept(.measured(Self.measurement(used: 500, usable: 1000))) == .newData)
        #expect(publisher.current?.state == .fresh)
        #expect(publisher.current?.seq == 3)
    }

    @Test func aRestoredSnapshotIsStaleUntilTheFirstSampleAndSeqCarriesOn() {
        var restored = Self.published(used: 500, usable: 1000)
        restored.seq = 41
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon, restoring: restored)
        #expect(publisher.current?.state == .stale)
        #expect(publisher.current?.seq == 41)
        #expect(publisher.accept(.measured(Self.measurement(used: 500, usable: 1000))) == .newData)
        #expect(publisher.current?.state == .fresh)
        #expect(publisher.current?.seq == 42)
    }

    @Test func seqIncrementsOnlyWhenPublishing() {
        var publisher = Publisher(policy: PublishPolicy(), source: .direct)
        publisher.accept(.measured(Self.measurement(used: 500, usable: 1000)))
        publisher.accept(.measured(Self.measurement(used: 500, usable: 1000)))
        #expect(publisher.current?.seq == 1)
        publisher.accept(.measured(Self.measurement(used: 600, usable: 1000)))
        #expect(publisher.current?.seq == 2)
    }
}

@Suite struct UnmountTests {
    static func measurement(path: String, mountPoint: String, used: UInt64 = 10) -> Sample {
        .measured(Measurement(path: path, mountPoint: mountPoint, fileSystemType: "ext4",
                              stats: FilesystemStats(blockSize: 4096, totalBlocks: 100, freeBlocks: 100 - used, availableBlocks: 100 - used),
                              sampledAt: Timestamp(secondsSinceEpoch: 0)))
    }

    /// An unplugged disk: its mount point is now a plain directory of the root filesystem,
    /// whose numbers must not be shown as the disk's.
    @Test func aWatchedMountPointThatIsUnmountedFailsAndRecovers() {
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        #expect(publisher.accept(Self.measurement(path: "/mnt/usb", mountPoint: "/mnt/usb")) == .newData)
        #expect(publisher.accept(Self.measurement(path: "/mnt/usb", mountPoint: "/", used: 50)) == .failed)
        #expect(publisher.current?.state == .failed)
        #expect(publisher.current?.error == "/mnt/usb: nothing is mounted here any more (it is now part of /)")
        #expect(publisher.current?.stats == nil)
        #expect(publisher.accept(Self.measurement(path: "/mnt/usb", mountPoint: "/", used: 51)) == .noData)
        #expect(publisher.accept(Self.measurement(path: "/mnt/usb", mountPoint: "/mnt/usb")) == .newData)
        #expect(publisher.current?.state == .fresh)
    }

    @Test func aPathBelowAMountMayMoveBetweenMounts() {
        var publisher = Publisher(policy: PublishPolicy(), source: .daemon)
        publisher.accept(Self.measurement(path: "/home/u", mountPoint: "/home"))
        #expect(publisher.accept(Self.measurement(path: "/home/u", mountPoint: "/")) == .newData)
        #expect(publisher.current?.state == .fresh)
    }
}

@Suite struct LowSpacePolicyTests {
    /// A 100 GB filesystem with `free` GB available (no reserve).
    static func snapshot(freeGB: UInt64, totalGB: UInt64 = 100, state: SnapshotState = .fresh) -> Snapshot {
        Snapshot(path: "/home/u", mountPoint: "/home", fileSystemType: "ext4",
                 stats: FilesystemStats(blockSize: 1_000_000, totalBlocks: totalGB * 1000, freeBlocks: freeGB * 1000, availableBlocks: freeGB * 1000),
                 state: state, seq: 1, sampledAt: Timestamp(secondsSinceEpoch: 0), source: .daemon)
    }

    static let policy: LowSpacePolicy = {
        var policy = LowSpacePolicy()
        policy.freeBytes = 10_000_000_000 // 10 GB, so a 100 GB disk at 5 % qualifies
        return policy
    }()

    @Test func lowNeedsBothAShareAndASize() {
        var policy = LowSpacePolicy() // 5 % and 1 GiB
        // 4 GB of 100 GB: 4 % but more than 1 GiB: not low (GNOME's rule).
        #expect(policy.evaluate(Self.snapshot(freeGB: 4), alert: LowSpaceNotificationState(), now: 0).0 == .none)
        // 1 GB of 10 GB: 10 %, under 1 GiB but not under 5 %: not low.
        #expect(policy.evaluate(Self.snapshot(freeGB: 1, totalGB: 10), alert: LowSpaceNotificationState(), now: 0).0 == .none)
        policy.freeShare = Fraction(numerator: 20, denominator: 100)
        guard case .notify(let summary, let body) = policy.evaluate(Self.snapshot(freeGB: 1, totalGB: 10), alert: LowSpaceNotificationState(), now: 0).0 else {
            Issue.record("expected a notification")
            return
        }
        #expect(summary == "Low disk space on /home")
        #expect(body == "Only 1 GB (10.0%) is free of 10 GB.")
    }

    /// Hostile but valid limits (the largest size the parser takes, a 12-decimal percentage)
    /// on a huge filesystem: decided exactly, no overflow (the daemon used to trap).
    @Test func extremeLimitsDoNotOverflow() throws {
        var policy = LowSpacePolicy()
        policy.freeBytes = try #require(ByteSizeParser.parse("18000PB"))
        policy.freeShare = try ThresholdParser.parse("50%")
        policy.furtherDrop = try ThresholdParser.parse("0.000000000001%")
        policy.minimumPeriod = 0
        func huge(_ available: UInt64) -> Snapshot {
            Snapshot(path: "/big", mountPoint: "/big", fileSystemType: "xfs",
                     stats: FilesystemStats(blockSize: 1, totalBlocks: 1 << 62, freeBlocks: available, availableBlocks: available),
                     state: .fresh, seq: 1, sampledAt: Timestamp(secondsSinceEpoch: 0), source: .daemon)
        }
        let (first, alert) = policy.evaluate(huge(1 << 60), alert: LowSpaceNotificationState(), now: 0)
        guard case .notify = first else { Issue.record("not low: \(first)"); return }
        guard case .notify = policy.evaluate(huge((1 << 60) - (1 << 20)), alert: alert, now: 1).0 else { Issue.record("a further drop"); return }
        #expect(policy.evaluate(huge(1 << 60), alert: alert, now: 1).0 == .none)
        #expect(policy.evaluate(huge(1 << 62), alert: alert, now: 1).0 == .withdraw)
    }

    @Test func notifiesAgainOnlyAfterAFurtherDropAndAPeriod() {
        var alert = LowSpaceNotificationState()
        var action: LowSpaceAction
        (action, alert) = Self.policy.evaluate(Self.snapshot(freeGB: 5), alert: alert, now: 1000)
        #expect(action != .none)
        (action, alert) = Self.policy.evaluate(Self.snapshot(freeGB: 4), alert: alert, now: 1100)
        #expect(action == .none, "a further drop, but within 10 minutes")
        (action, alert) = Self.policy.evaluate(Self.snapshot(freeGB: 5), alert: alert, now: 2000)
        #expect(action == .none, "no further drop")
        (action, alert) = Self.policy.evaluate(Self.snapshot(freeGB: 4), alert: alert, now: 2000)
        #expect(action != .none, "1 point less, 10 minutes on")
    }

    @Test func ignoreSnoozesAndRecoveryClearsIt() {
        var alert = LowSpaceNotificationState()
        var action: LowSpaceAction
        (action, alert) = Self.policy.evaluate(Self.snapshot(freeGB: 5), alert: alert, now: 0)
        alert = Self.policy.snoozed(alert, now: 10)
        (action, alert) = Self.policy.evaluate(Self.snapshot(freeGB: 2), alert: alert, now: 5000)
        #expect(action == .none, "snoozed for a day")
        // Hovering just above the limit is not a recovery (margin of 1 point).
        (action, alert) = Self.policy.evaluate(Self.snapshot(freeGB: 5), alert: alert, now: 6000)
        #expect(action == .none)
        #expect(alert.snoozedUntil > 0)
        (action, alert) = Self.policy.evaluate(Self.snapshot(freeGB: 30), alert: alert, now: 7000)
        #expect(action == .withdraw)
        #expect(alert == LowSpaceNotificationState())
        (action, alert) = Self.policy.evaluate(Self.snapshot(freeGB: 3), alert: alert, now: 8000)
        #expect(action != .none, "low again after recovering")
        (action, _) = Self.policy.evaluate(Self.snapshot(freeGB: 1), alert: Self.policy.snoozed(alert, now: 8000), now: 8000 + 86_400)
        #expect(action != .none, "the snooze ends")
    }

    @Test func staleOrFailedSnapshotsDecideNothing() {
        #expect(Self.policy.evaluate(Self.snapshot(freeGB: 1, state: .stale), alert: LowSpaceNotificationState(), now: 0).0 == .none)
    }

    @Test func alertsRoundTripAndGarbageIsRefused() throws {
        var alert = LowSpaceNotificationState()
        alert.active = true
        alert.notifiedFreeShare = Fraction(numerator: 3, denominator: 100)
        alert.notifiedAt = 1_795_000_000
        alert.snoozedUntil = 1_795_086_400
        let text = LowSpaceNotificationStateCodec.encode(["/home/u": alert, "/a\"b": LowSpaceNotificationState()])
        #expect(try LowSpaceNotificationStateCodec.decode(text) == ["/home/u": alert, "/a\"b": LowSpaceNotificationState()])
        for bad in ["", "[]", "{\"version\":2,\"alerts\":{}}", "{\"version\":1}"] {
            #expect(throws: LowSpaceNotificationStateCodec.Failure.self) { try LowSpaceNotificationStateCodec.decode(bad) }
        }
    }

    @Test func theNotifySectionIsApplied() throws {
        let configuration = try Configuration.parse("[notify]\nfree-below = 10%\nfree-size-below = 5GB\nsnooze = 2h\nminimum-period = 1min\nenabled = no\n")
        #expect(configuration.notify.freeShare == Fraction(numerator: 10, denominator: 100))
        #expect(configuration.notify.freeBytes == 5_000_000_000)
        #expect(configuration.notify.snooze == 7200)
        #expect(configuration.notify.minimumPeriod == 60)
        #expect(!configuration.notify.enabled)
        #expect(Configuration.check("[notify]\nsnooze = 1s\nfree-below = 5\nenabled = maybe\nloud = yes\n").map(\.line) == [2, 3, 4, 5])
    }
}
