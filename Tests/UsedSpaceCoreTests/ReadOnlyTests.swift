import Testing
@testable import UsedSpaceCore

/// The filesystem's read-only state, carried from the sample to every view, and a low-space
/// notification that a read-only filesystem never gets.
@Suite struct ReadOnlyTests {
    static func snapshot(freeGB: UInt64, readOnly: Bool) -> Snapshot {
        Snapshot(path: "/media/u/disc", mountPoint: "/media/u/disc", fileSystemType: "udf",
                 stats: FilesystemStats(blockSize: 1_000_000, totalBlocks: 100_000, freeBlocks: freeGB * 1000, availableBlocks: freeGB * 1000,
                                        readOnly: readOnly),
                 state: .fresh, seq: 3, sampledAt: Timestamp(secondsSinceEpoch: 1_800_000_000), source: .daemon)
    }

    @Test func aFullReadOnlyFilesystemIsNotLowOnSpace() {
        var policy = LowSpacePolicy()
        policy.freeBytes = 10_000_000_000
        // The same numbers, writable: a notification (the test can fail).
        guard case .notify = policy.evaluate(Self.snapshot(freeGB: 1, readOnly: false), alert: LowSpaceNotificationState(), now: 0).0 else {
            Issue.record("a writable filesystem with 1 % free should be low")
            return
        }
        #expect(policy.evaluate(Self.snapshot(freeGB: 1, readOnly: true), alert: LowSpaceNotificationState(), now: 0).0 == .none)
    }

    @Test func aFilesystemRemountedReadOnlyTakesItsNotificationDown() {
        var policy = LowSpacePolicy()
        policy.freeBytes = 10_000_000_000
        let (_, alert) = policy.evaluate(Self.snapshot(freeGB: 1, readOnly: false), alert: LowSpaceNotificationState(), now: 0)
        #expect(alert.active)
        let (action, after) = policy.evaluate(Self.snapshot(freeGB: 1, readOnly: true), alert: alert, now: 10)
        #expect(action == .withdraw)
        #expect(after == LowSpaceNotificationState())
    }

    @Test func theStateFileKeepsTheMark() throws {
        for readOnly in [true, false] {
            let snapshot = Self.snapshot(freeGB: 5, readOnly: readOnly)
            let decoded = try SnapshotCodec.decode(SnapshotCodec.encode(snapshot), source: .daemon)
            #expect(decoded.stats?.readOnly == readOnly)
            #expect(decoded == snapshot)
        }
    }

    @Test func prometheusHasAReadOnlyGauge() {
        let text = PrometheusTextRenderer.render([Self.snapshot(freeGB: 5, readOnly: true), {
            var other = Self.snapshot(freeGB: 5, readOnly: false)
            other.path = "/home"
            other.mountPoint = "/home"
            other.fileSystemType = "ext4"
            return other
        }()])
        #expect(text.contains("# TYPE usedspace_filesystem_read_only gauge\n"))
        #expect(text.contains("usedspace_filesystem_read_only{path=\"/media/u/disc\",mountpoint=\"/media/u/disc\",fstype=\"udf\"} 1\n"))
        #expect(text.contains("usedspace_filesystem_read_only{path=\"/home\",mountpoint=\"/home\",fstype=\"ext4\"} 0\n"))
    }

    @Test func jsonSaysReadOnlyOrNullWithoutNumbers() {
        #expect(JSONRenderer.render(Self.snapshot(freeGB: 5, readOnly: true)).contains(",\"read_only\":true,"))
        #expect(JSONRenderer.render(Self.snapshot(freeGB: 5, readOnly: false)).contains(",\"read_only\":false,"))
        var failed = Self.snapshot(freeGB: 5, readOnly: true)
        failed.stats = nil
        failed.state = .failed
        #expect(JSONRenderer.render(failed).contains(",\"read_only\":null,"))
    }
}
