import Testing
@testable import UsedSpaceCore

/// A quota that binds, carried from the measurement to every view: the bar, its percentage
/// and the level follow the quota (marked), df's numbers stay in the details, JSON and
/// Prometheus beside the quota's, the state file and the protocol keep it, a low-space
/// notification comes for the quota, and a publish follows the quota's used rate.
@Suite struct QuotaViewTests {
    /// The 1.2 GB btrfs of the issue: 6 % used by df, the subvolume's 50 MiB qgroup nearly
    /// full (50,000,000 of 52,428,800 bytes: 95.4 %).
    static let stats = FilesystemStats(blockSize: 1, totalBlocks: 1_258_291_200, freeBlocks: 1_199_603_712, availableBlocks: 1_062_240_256)
    static let quota = Quota(kind: .btrfsReferenced, usedBytes: 50_000_000, limitBytes: 52_428_800)

    static func snapshot(quota: Quota? = QuotaViewTests.quota, seq: UInt64 = 4) -> Snapshot {
        var measurement = Measurement(path: "/home/u", mountPoint: "/home", fileSystemType: "btrfs", stats: stats,
                                      sampledAt: Timestamp(secondsSinceEpoch: 1_800_000_000))
        measurement.quota = quota
        return Snapshot(measurement, seq: seq, source: .daemon)
    }

    @Test func theBarAndItsPercentageAreTheQuotasMarked() {
        #expect(TextRenderer.statusLine(Self.snapshot()) == "[███████████████████░]  95.4%  (quota)")
        #expect(TextRenderer.statusLine(Self.snapshot(quota: nil)) == "[█░░░░░░░░░░░░░░░░░░░]   5.2%")
        let block = BarBlock(Self.snapshot(), options: BarOptions(), severity: .critical, expanded: false)
        #expect(block.percentage == 96 && block.fullText.hasSuffix("95.4% (quota)"), "\(block.fullText)")
    }

    @Test func theDetailsKeepDfsNumbersAndAddTheQuota() {
        let lines = TextRenderer.detailLines(Self.snapshot())
        #expect(lines.prefix(3) == ["Used:\t58.7 MB", "Free:\t1.06 GB", "Total:\t1.26 GB"], "\(lines)")
        #expect(lines.contains("Quota:\t50 MB used of 52.4 MB (btrfs qgroup)"), "\(lines)")
        let expanded = BarBlock(Self.snapshot(), options: BarOptions(), severity: .critical, expanded: true)
        #expect(expanded.details.contains("Quota: 50 MB used of 52.4 MB (btrfs qgroup)"), "\(expanded.details)")
    }

    @Test func theLevelFollowsTheQuota() throws {
        let limits = try Configuration.parse("[bar]\nwarn = 80%\ncritical = 90%\n").bar.severity
        #expect(FilesystemLevel.decide(Self.snapshot(), limits: limits, previous: nil) == .critical)
        #expect(FilesystemLevel.decide(Self.snapshot(quota: nil), limits: limits, previous: nil) == .normal)
        #expect(FilesystemLevel.decide(Self.snapshot(), limits: SeverityPolicy(), previous: nil) == .critical)
    }

    @Test func jsonKeepsDfsNumbersAndSaysTheQuota() throws {
        let object = try JSONParser.parse(JSONRenderer.render(Self.snapshot()))
        #expect(object["used_percent"]?.uint64Value == 6, "df's Use%")
        let quota = try #require(object["quota"])
        #expect(quota["kind"]?.stringValue == "btrfs-referenced")
        #expect(quota["used_bytes"]?.uint64Value == 50_000_000 && quota["limit_bytes"]?.uint64Value == 52_428_800)
        #expect(quota["free_bytes"]?.uint64Value == 2_428_800 && quota["used_percent"]?.uint64Value == 96)
        #expect(try JSONParser.parse(JSONRenderer.render(Self.snapshot(quota: nil)))["quota"] == nil)
    }

    @Test func prometheusHasTheQuotasSeries() {
        let text = PrometheusTextRenderer.render([Self.snapshot()])
        #expect(text.contains(#"usedspace_quota_used_bytes{path="/home/u",mountpoint="/home",fstype="btrfs",kind="btrfs-referenced"} 50000000"#), "\(text)")
        #expect(text.contains(#"usedspace_quota_limit_bytes{path="/home/u",mountpoint="/home",fstype="btrfs",kind="btrfs-referenced"} 52428800"#))
        #expect(text.contains(#"usedspace_used_bytes{path="/home/u",mountpoint="/home",fstype="btrfs"} 58687488"#))
        #expect(!PrometheusTextRenderer.render([Self.snapshot(quota: nil)]).contains("usedspace_quota"))
    }

    @Test func theStateFileAndTheProtocolKeepIt() throws {
        let decoded = try SnapshotCodec.decode(SnapshotCodec.encode(Self.snapshot()), source: .daemon)
        #expect(decoded == Self.snapshot())
    }

    @Test(arguments: [
        (#""quota":{"kind":"nfs","used_bytes":1,"limit_bytes":2}"#, "quota.kind"),
        (#""quota":{"kind":"user","used_bytes":-1,"limit_bytes":2}"#, "quota.used_bytes"),
        (#""quota":{"kind":"user","used_bytes":1,"limit_bytes":0}"#, "quota.limit_bytes"),
        (#""quota":[1]"#, "quota"),
    ])
    func aBrokenQuotaIsRefusedWithItsKey(_ replacement: String, _ key: String) {
        let text = SnapshotCodec.encode(Self.snapshot()).replacingOccurrences(
            of: #""quota":{"kind":"btrfs-referenced","used_bytes":50000000,"limit_bytes":52428800}"#, with: replacement)
        #expect(text.contains(replacement))
        do {
            _ = try SnapshotCodec.decode(text, source: .daemon)
            Issue.record("accepted \(replacement)")
        } catch {
            #expect(error.description.contains(key), "\(error.description)")
        }
    }

    @Test func aLowQuotaIsNotifiedWhileTheFilesystemIsNot() {
        var policy = LowSpacePolicy()
        policy.freeShare = Fraction(numerator: 10, denominator: 100)
        policy.freeBytes = 1_000_000_000
        let (action, _) = policy.evaluate(Self.snapshot(), alert: LowSpaceNotificationState(), now: 0)
        #expect(action == .notify(summary: "Low disk space on /home",
                                  body: "Only 2.4 MB (4.6%) is free of your btrfs qgroup of 52.4 MB."), "\(action)")
        #expect(policy.evaluate(Self.snapshot(quota: nil), alert: LowSpaceNotificationState(), now: 0).0 == .none)
    }

    @Test func aPublishFollowsTheQuotasUsedRate() {
        let policy = PublishPolicy()
        func measured(_ used: UInt64?) -> Sample {
            var measurement = Measurement(path: "/home/u", mountPoint: "/home", fileSystemType: "btrfs", stats: Self.stats,
                                          sampledAt: Timestamp(secondsSinceEpoch: 1_800_000_001))
            measurement.quota = used.map { Quota(kind: .btrfsReferenced, usedBytes: $0, limitBytes: 52_428_800) }
            return .measured(measurement)
        }
        let previous = Self.snapshot()
        // 1 MB more under the quota: 1.9 points of it, while df's figures did not move.
        #expect(policy.decide(previous: previous, sample: measured(51_000_000), fastFill: nil) == .newData)
        #expect(policy.decide(previous: previous, sample: measured(50_000_000), fastFill: nil) == .noData)
        // The limit lifted: news.
        #expect(policy.decide(previous: previous, sample: measured(nil), fastFill: nil) == .newData)
    }
}
