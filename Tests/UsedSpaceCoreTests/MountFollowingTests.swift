import Testing
@testable import UsedSpaceCore

/// The one rule of following the mount table that the daemon and `watch --all` share: a
/// mount point this user cannot reach is left out while it stays mounted.
@Suite struct MountFollowingTests {
    static let withUSB = MountInfoParser.parse(#"""
    22 1 252:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
    30 22 252:16 / /home rw,relatime shared:7 - xfs /dev/vdb rw
    42 22 7:3 / /mnt/usb rw,relatime - ext4 /dev/loop3 rw
    """#)
    static let withoutUSB = Array(withUSB.prefix(2))

    static func snapshot(_ path: String, error: SampleError) -> Snapshot {
        Snapshot(path: path, mountPoint: nil, fileSystemType: nil, stats: nil, state: .failed, seq: 1,
                 sampledAt: Timestamp(secondsSinceEpoch: 0), source: .direct, error: error.description)
    }

    @Test func whatIsMountedStartsAndWhatIsUnmountedEnds() {
        var rule = MountFollowing()
        let first = rule.wanted(in: Self.withoutUSB, besides: ["/home/u"])
        #expect(first == ["/"])
        let (wanted, diff) = rule.changes(in: Self.withUSB, besides: ["/home/u"], from: first)
        #expect(wanted == ["/", "/mnt/usb"] && diff.added == ["/mnt/usb"] && diff.removed.isEmpty)
        let unmounted = rule.changes(in: Self.withoutUSB, besides: ["/home/u"], from: wanted)
        #expect(unmounted.diff.removed == ["/mnt/usb"])
    }

    @Test func anUnreachableMountPointIsLeftOutUntilItIsUnmounted() {
        var rule = MountFollowing()
        let followed = rule.wanted(in: Self.withUSB, besides: [])
        let denied = rule.isUnreachable(Self.snapshot("/mnt/usb", error: .permissionDenied(path: "/mnt/usb")), of: "/mnt/usb", followed: followed)
        #expect(denied)
        let (wanted, diff) = rule.changes(in: Self.withUSB, besides: [], from: followed)
        #expect(wanted == ["/", "/home"] && diff.removed == ["/mnt/usb"])
        // Unmounted, then mounted again: it may be reachable now.
        _ = rule.changes(in: Self.withoutUSB, besides: [], from: wanted)
        let remounted = rule.wanted(in: Self.withUSB, besides: [])
        #expect(remounted.contains("/mnt/usb"))
    }

    @Test func otherFailuresAndExplicitPathsAreNotUnreachable() {
        var rule = MountFollowing()
        let followed = rule.wanted(in: Self.withUSB, besides: [])
        let missing = rule.isUnreachable(Self.snapshot("/mnt/usb", error: .pathNotFound(path: "/mnt/usb")), of: "/mnt/usb", followed: followed)
        // A path the user configured is shown failed, not dropped.
        let configured = rule.isUnreachable(Self.snapshot("/srv/x", error: .permissionDenied(path: "/srv/x")), of: "/srv/x", followed: followed)
        #expect(!missing && !configured)
        let again = rule.wanted(in: Self.withUSB, besides: [])
        #expect(again.contains("/mnt/usb"))
    }
}
