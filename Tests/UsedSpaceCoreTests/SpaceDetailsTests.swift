import Foundation
import Testing
@testable import UsedSpaceCore

/// The btrfs and fast-fill parts of a snapshot where they are written and read: the persisted
/// form (which crosses the daemon's socket and the state file, so it is read strictly),
/// Prometheus, and where a fast fill stands against the slow estimate.
@Suite struct SpaceDetailsTests {
    static let golden = try! GoldenRenderingTests.read("btrfs-metadata-full", "snapshot.json")
    static let fill = try! GoldenRenderingTests.read("fast-fill", "snapshot.json")

    @Test func bothReadBackExactly() throws {
        for text in [Self.golden, Self.fill] {
            let snapshot = try SnapshotCodec.decode(text, source: .daemon)
            #expect(try SnapshotCodec.decode(SnapshotCodec.encode(snapshot), source: .daemon) == snapshot)
        }
        let btrfs = try #require(try SnapshotCodec.decode(Self.golden, source: .daemon).btrfs)
        #expect(btrfs.unallocatedBytes == 1_048_576 && btrfs.metadataLevel == .full && !btrfs.metadataCanGrow)
        // Written before these keys existed: read as a snapshot without them.
        let plain = try SnapshotCodec.decode(SnapshotCodecTests.valid, source: .daemon)
        #expect(plain.btrfs == nil && plain.fastFill == nil)
    }

    @Test(arguments: [
        (#""btrfs":{"device_bytes""#, #""btrfs":7,"other":{"device_bytes""#, "'btrfs' is not an object"),
        (#""device_bytes":1073741824"#, #""device_bytes":0"#, "'btrfs.device_bytes' is 0"),
        (#""device_bytes":1073741824"#, #""device_bytes":-1"#, "'btrfs.device_bytes' is not a non-negative integer"),
        (#""device_bytes":1073741824"#, #""device_bytes":18446744073709551616"#, "'btrfs.device_bytes' is not a non-negative integer"),
        (#""metadata_state":"full""#, #""metadata_state":"FULL""#, "'btrfs.metadata_state' is not ok, low or full"),
        (#""mixed":false"#, #""mixed":"no""#, "'btrfs.mixed' is not true or false"),
        (#"["single"]},"metadata""#, #"["raid7"]},"metadata""#, "'btrfs.data.profiles' names a profile btrfs does not have"),
        (#"["single"]},"metadata""#, #"[1]},"metadata""#, "'btrfs.data.profiles' names a profile"),
        (#"["single"]},"metadata""#, #""single"},"metadata""#, "'btrfs.data.profiles' is not a list"),
        (#""system":{"total_bytes":4194304,"#, #""system":{"#, "'btrfs.system.total_bytes' is missing"),
        (#","global_reserve_bytes":5767168"#, "", "'btrfs.global_reserve_bytes' is missing"),
    ])
    func aBrokenBtrfsObjectIsRefusedWithAReason(_ original: String, _ replacement: String, _ reason: String) {
        let text = Self.golden.replacingOccurrences(of: original, with: replacement)
        #expect(text != Self.golden, "the test must change something")
        #expect(throws: SnapshotCodec.Failure.self) { try SnapshotCodec.decode(text, source: .daemon) }
        do { _ = try SnapshotCodec.decode(text, source: .daemon) } catch { #expect(error.description.contains(reason), "\(error)") }
    }

    @Test func hostileProfilesAndFillsAreRefused() {
        let many = "[" + Array(repeating: #""single""#, count: 10).joined(separator: ",") + "]"
        #expect(throws: SnapshotCodec.Failure.self) {
            try SnapshotCodec.decode(Self.golden.replacingOccurrences(of: #"["single"]},"metadata""#, with: many + #"},"metadata""#), source: .daemon)
        }
        for fill in [#"[]"#, #"{"bytes_per_second":-1,"seconds_to_full":1,"sustained_seconds":1}"#,
                     #"{"bytes_per_second":1,"seconds_to_full":9223372036854775808,"sustained_seconds":1}"#,
                     #"{"bytes_per_second":1,"seconds_to_full":1}"#, #"{"bytes_per_second":1.5,"seconds_to_full":1,"sustained_seconds":1}"#] {
            let text = Self.fill.replacingOccurrences(of: #"{"bytes_per_second":50000000,"seconds_to_full":180,"sustained_seconds":30}"#, with: fill)
            #expect(throws: SnapshotCodec.Failure.self, "\(fill)") { try SnapshotCodec.decode(text, source: .daemon) }
        }
        // A failed snapshot has no numbers, so no allocation either.
        let failed = #"{"version":1,"path":"/h","state":"failed","seq":1,"sampled_at":"2026-11-21T00:00:00Z","error":"x","btrfs":{}}"#
        #expect(throws: SnapshotCodec.Failure.invalid("btrfs", reason: "is there without the block counts")) {
            try SnapshotCodec.decode(failed, source: .daemon)
        }
    }

    @Test func prometheusHasTheAllocationAndTheFill() throws {
        let btrfs = try SnapshotCodec.decode(Self.golden, source: .daemon)
        let text = PrometheusTextRenderer.render([btrfs, try SnapshotCodec.decode(Self.fill, source: .daemon)])
        let labels = #"path="/mnt/data",mountpoint="/mnt/data",fstype="btrfs""#
        for line in [
            "usedspace_btrfs_device_size_bytes{\(labels)} 1073741824",
            "usedspace_btrfs_unallocated_bytes{\(labels)} 1048576",
            #"usedspace_btrfs_allocated_bytes{\#(labels),block_group_type="metadata"} 120586240"#,
            #"usedspace_btrfs_used_bytes{\#(labels),block_group_type="data"} 471859200"#,
            #"usedspace_btrfs_allocation_ratio{\#(labels),block_group_type="system"} 1.0"#,
            "usedspace_btrfs_global_rsv_size_bytes{\(labels)} 5767168",
            "usedspace_btrfs_metadata_can_grow{\(labels)} 0",
            "usedspace_btrfs_metadata_state{\(labels)} 2",
            #"usedspace_fast_fill_bytes_per_second{path="/srv",mountpoint="/srv",fstype="ext4"} 50000000"#,
            #"usedspace_fast_fill_seconds_to_full{path="/srv",mountpoint="/srv",fstype="ext4"} 180"#,
            // The fast fill is sooner than the slow estimate (3–5 days): the gauge carries it.
            #"usedspace_time_to_full_seconds{path="/srv",mountpoint="/srv",fstype="ext4",bound="upper"} 180"#,
        ] {
            #expect(text.contains(line + "\n"), "\(line)")
        }
        #expect(!text.contains(#"usedspace_fast_fill_bytes_per_second{path="/mnt/data""#))
        // Every family has its HELP and TYPE once, before its series.
        #expect(text.components(separatedBy: "# TYPE usedspace_btrfs_metadata_state gauge\n").count == 2)
    }

    @Test func theFastFillStandsInForTheSlowEstimateOnlyWhenSooner() throws {
        var snapshot = try SnapshotCodec.decode(Self.fill, source: .daemon)
        #expect(snapshot.shownTimeToFull == TimeToFull(lowerSeconds: 180, upperSeconds: 180, windowSeconds: [30]))
        snapshot.timeToFull = TimeToFull(lowerSeconds: 100, upperSeconds: 400)
        #expect(snapshot.shownTimeToFull?.lowerSeconds == 100, "the slow estimate says sooner")
        snapshot.timeToFull = nil
        snapshot.state = .stale
        #expect(snapshot.shownTimeToFull == nil && snapshot.spaceAlerts.isEmpty, "a stale snapshot's fill is not current")
    }

    @Test func alertsComeMostSevereFirstAndNameThePlaceSafely() throws {
        var snapshot = try SnapshotCodec.decode(Self.golden, source: .daemon)
        snapshot.mountPoint = "/mnt/\u{1B}[31mred"
        snapshot.fastFill = FastFill(bytesPerSecond: 1_000_000, secondsToFull: 3000, sustainedSeconds: 450)
        let alerts = snapshot.spaceAlerts
        #expect(alerts.map(\.kind) == [.btrfsMetadata, .fastFill])
        #expect(alerts.map(\.severity) == [.critical, .warning])
        #expect(alerts.allSatisfy { !$0.summary.contains("\u{1B}") && !$0.body.contains("\u{1B}") })
        #expect(alerts[0].body.hasSuffix("btrfs balance start -dusage=50 /mnt/?[31mred"), "\(alerts[0].body)")
        #expect(alerts[1].body == "Space is going at 1 MB/s (seen for 450 s): full in about 50 minutes at this rate, with 454 MB free.")
    }
}
