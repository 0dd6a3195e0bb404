import Testing
@testable import UsedSpaceCore

/// `path = auto`: which mount points it watches, and how two reads of the table differ.
@Suite struct AutomaticWatchesTests {
    static let table = MountInfoParser.parse(#"""
    22 1 252:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
    23 22 0:21 / /proc rw,nosuid shared:5 - proc proc rw
    24 22 0:22 / /sys rw,nosuid shared:6 - sysfs sysfs rw
    30 22 252:16 / /home rw,relatime shared:7 - xfs /dev/vdb rw
    40 22 252:16 /u/shared /srv/shared rw,relatime shared:7 - xfs /dev/vdb rw
    41 22 8:1 / /boot/efi rw,relatime shared:8 - vfat /dev/sda1 rw
    42 22 7:3 / /mnt/usb\040disk rw,relatime - ext4 /dev/loop3 rw
    """#)

    @Test func everyRealFilesystemOnceByItsMountPoint() {
        let points = AutomaticWatches.mountPoints(in: Self.table, besides: [])
        // proc and sysfs are not real; /srv/shared is /home's filesystem again (a bind mount).
        #expect(points.sorted() == ["/", "/boot/efi", "/home", "/mnt/usb disk"])
    }

    @Test func aFilesystemAnExplicitPathIsOnIsNotWatchedAgain() {
        // ~ is /home/u: the home filesystem is the explicit watch's.
        #expect(AutomaticWatches.mountPoints(in: Self.table, besides: ["/home/u"]).sorted() == ["/", "/boot/efi", "/mnt/usb disk"])
        // Under the bind mount: the same device, so the same filesystem.
        #expect(AutomaticWatches.mountPoints(in: Self.table, besides: ["/srv/shared/x"]).sorted() == ["/", "/boot/efi", "/mnt/usb disk"])
        // A path on / (not under another mount) takes / away, nothing else.
        #expect(AutomaticWatches.mountPoints(in: Self.table, besides: ["/var/log", "/homer"]).sorted() == ["/boot/efi", "/home", "/mnt/usb disk"])
    }

    @Test func anEmptyOrUnreadableTableWatchesNothing() {
        #expect(AutomaticWatches.mountPoints(in: [], besides: ["/home/u"]).isEmpty)
    }

    @Test func aDiffNamesWhatWasMountedAndUnmountedInTheirOrder() {
        let diff = MountDiff(from: ["/", "/home", "/mnt/a", "/mnt/b"], to: ["/", "/mnt/c", "/home", "/mnt/d"])
        #expect(diff.added == ["/mnt/c", "/mnt/d"])
        #expect(diff.removed == ["/mnt/a", "/mnt/b"])
        #expect(!diff.isEmpty)
    }

    @Test func theSameMountsInAnotherOrderAreNoChange() {
        #expect(MountDiff(from: ["/", "/home"], to: ["/home", "/"]).isEmpty)
        #expect(MountDiff(from: [], to: []).isEmpty)
        #expect(MountDiff(from: [], to: ["/mnt/x"]) == MountDiff(from: ["/mnt/y"], to: ["/mnt/y", "/mnt/x"]))
        #expect(MountDiff(from: ["/mnt/x"], to: []).removed == ["/mnt/x"])
    }

    @Test func pathAutoInTheConfiguration() throws {
        let alone = try Configuration.parse("[daemon]\npath = auto\n")
        #expect(alone.daemon.followsMounts)
        #expect(alone.daemon.paths == [])
        let both = try Configuration.parse("[daemon]\npath = ~\npath = auto\npath = /data\n")
        #expect(both.daemon.followsMounts)
        #expect(both.daemon.paths == ["~", "/data"])
        let none = try Configuration.parse("[daemon]\npath = /data\n")
        #expect(!none.daemon.followsMounts)
        #expect(try Configuration.parse("").daemon.paths == ["~"])
        #expect(try !Configuration.parse("").daemon.followsMounts)
    }

    @Test(arguments: [
        ("[daemon]\npath = Auto\n", "line 2: path: 'Auto' must be an absolute path, start with ~/, or be auto (every real filesystem mounted)"),
        ("[daemon]\npath = auto/\n", "line 2: path: 'auto/' must be an absolute path, start with ~/, or be auto (every real filesystem mounted)"),
        ("[daemon]\npath = autos\n", "line 2: path: 'autos' must be an absolute path, start with ~/, or be auto (every real filesystem mounted)"),
    ])
    func aMisspeltAutoIsAnErrorThatSaysWhatWouldBeRight(_ text: String, _ message: String) {
        #expect(Configuration.check(text).map(\.description) == [message])
    }

    @Test func aSnapshotWhoseWatchEndedSaysSoAndReadsBack() throws {
        var snapshot = Snapshot(path: "/mnt/usb", mountPoint: "/mnt/usb", fileSystemType: "ext4", stats: nil, state: .failed, seq: 7,
                                sampledAt: Timestamp(secondsSinceEpoch: 1_700_000_000), source: .daemon,
                                error: "/mnt/usb was unmounted; no longer watched")
        snapshot.notMounted = true
        snapshot.watchEnded = true
        let encoded = SnapshotCodec.encode(snapshot)
        #expect(encoded.contains(#""watch_ended":true"#))
        #expect(try SnapshotCodec.decode(encoded, source: .daemon) == snapshot)
        #expect(JSONRenderer.render(snapshot).contains(#""error":"/mnt/usb was unmounted; no longer watched","watch_ended":true"#))
        snapshot.watchEnded = false
        #expect(!SnapshotCodec.encode(snapshot).contains("watch_ended"))
        #expect(!JSONRenderer.render(snapshot).contains("watch_ended"))
    }
}
