import Testing
@testable import UsedSpaceCore

@Suite struct MountInfoTests {
    static let table = #"""
    22 1 252:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
    23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:5 - proc proc rw
    30 22 252:16 / /home rw,relatime shared:7 master:2 - xfs /dev/vdb rw,attr2
    31 30 0:40 / /home/u/my\040disk rw,relatime - tmpfs tmpfs rw,size=12348k
    32 22 0:41 / /homer rw - tmpfs tmpfs rw
    33 30 0:42 / /home rw - tmpfs over rw
    34 22 0:43 / /mnt/tab\011and\134back rw - fuse.sshfs me@host:/a\040b rw
    garbage line
    35 22 7:0 / /mnt/img rw -
    36 22 x:y / /mnt/bad rw - ext4 /dev/x rw
    """#

    @Test func parsesFieldsAndSkipsMalformedLines() {
        let entries = MountInfoParser.parse(Self.table)
        #expect(entries.map(\.mountID) == [22, 23, 30, 31, 32, 33, 34])
        #expect(entries[2] == MountEntry(mountID: 30, parentID: 22, deviceMajor: 252, deviceMinor: 16, root: "/",
                                         mountPoint: "/home", fileSystemType: "xfs", source: "/dev/vdb"))
    }

    /// The filesystem's state is the superblock's (the last field), not the mount's: a
    /// sandbox's read-only view of a writable filesystem is not a read-only filesystem.
    @Test func readOnlyIsTheSuperblocksState() {
        let entries = MountInfoParser.parse("""
            40 22 0:50 / /view ro,nosuid,relatime master:69 - tmpfs tmpfs rw,size=102400k
            41 22 7:1 / /cdrom ro,relatime - iso9660 /dev/loop1 ro,nojoliet
            42 22 7:2 / /remounted rw,relatime - ext4 /dev/loop2 ro,errors=remount-ro
            43 22 7:3 / /robust rw - ext4 /dev/loop3 rw,errors=remount-ro,rootcontext=ro
            44 22 7:4 / /bare rw - ext4 /dev/loop4
            """)
        #expect(entries.map(\.readOnly) == [false, true, true, false, false])
    }

    @Test func undoesOctalEscapes() {
        let entries = MountInfoParser.parse(Self.table)
        #expect(entries[3].mountPoint == "/home/u/my disk")
        #expect(entries[6].mountPoint == "/mnt/tab\tand\\back")
        #expect(entries[6].source == "me@host:/a b")
        #expect(MountInfoParser.unescape("a\\04") == "a\\04")
        #expect(MountInfoParser.unescape("a\\999b") == "a\\999b")
        #expect(MountInfoParser.unescape("\\134\\134") == "\\\\")
    }

    @Test func theDeepestMountWinsAtADirectoryBoundary() {
        let entries = MountInfoParser.parse(Self.table)
        #expect(MountLocator.mount(containing: "/home/u/my disk/photos", in: entries)?.mountID == 31)
        #expect(MountLocator.mount(containing: "/homer/x", in: entries)?.mountID == 32)
        #expect(MountLocator.mount(containing: "/home2", in: entries)?.mountID == 22)
        #expect(MountLocator.mount(containing: "/", in: entries)?.mountID == 22)
        #expect(MountLocator.mount(containing: "/proc/self", in: entries)?.mountID == 23)
    }

    @Test func theLaterOfStackedMountsWinsUnlessTheDeviceSaysOtherwise() {
        let entries = MountInfoParser.parse(Self.table)
        #expect(MountLocator.mount(containing: "/home/u", in: entries)?.mountID == 33)
        #expect(MountLocator.mount(containing: "/home/u", in: entries, device: (252, 16))?.mountID == 30)
        #expect(MountLocator.mount(containing: "/home/u/my disk", in: entries, device: (0, 40))?.mountID == 31)
    }

    @Test func noMountForARelativePathOrAnEmptyTable() {
        #expect(MountLocator.mount(containing: "/x", in: []) == nil)
        #expect(MountLocator.mount(containing: "relative", in: MountInfoParser.parse(Self.table)) == nil)
    }
}

@Suite struct TimestampTests {
    @Test func formatsKnownInstants() {
        #expect(Timestamp(secondsSinceEpoch: 0).rfc3339 == "1970-01-01T00:00:00Z")
        #expect(Timestamp(secondsSinceEpoch: 951_782_400).rfc3339 == "2000-02-29T00:00:00Z")
        #expect(Timestamp(secondsSinceEpoch: 1_795_305_599).rfc3339 == "2026-11-21T23:59:59Z")
        #expect(Timestamp(secondsSinceEpoch: -1).rfc3339 == "1969-12-31T23:59:59Z")
        #expect(Timestamp(secondsSinceEpoch: 4_102_444_800).rfc3339 == "2100-01-01T00:00:00Z")
    }

    @Test func roundTripsEveryDayOverFourHundredYears() {
        for day in stride(from: Int64(-146_097), to: 146_097 * 2, by: 1) {
            let time = Timestamp(secondsSinceEpoch: day * 86_400 + 45_296)
            #expect(Timestamp(rfc3339: time.rfc3339) == time)
        }
    }

    @Test func parsesOffsetsAndFractions() {
        #expect(Timestamp(rfc3339: "2026-11-21T23:59:59.123Z")?.secondsSinceEpoch == 1_795_305_599)
        #expect(Timestamp(rfc3339: "2026-11-22T01:59:59+02:00")?.secondsSinceEpoch == 1_795_305_599)
        #expect(Timestamp(rfc3339: "2026-11-21T18:59:59-05:00")?.secondsSinceEpoch == 1_795_305_599)
    }

    @Test(arguments: ["", "2026-11-21", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-21T24:00:00Z",
                      "2026-11-21T00:00:00", "2026-11-21T00:00:00.Z", "2026-11-21T00:00:00+0200", "2026-11-21T00:00:00Zjunk",
                      "２０２６-11-21T00:00:00Z", "2026-11-21 00:00:00Z"])
    func rejectsMalformedTimes(_ text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }
}

@Suite struct PasswordFileTests {
    static let passwd = """
    root:x:0:0:root:/root:/bin/bash
    # a comment:x:5:5::/nowhere:/bin/false
    broken line
    alice:x:1000:1000:Alice,,,:/home/alice:/bin/zsh
    nohome:x:1001:1001:::/bin/sh
    alice2:x:1000:1000::/home/second:/bin/sh
    """

    @Test func findsTheFirstEntryOfAUid() {
        #expect(PasswordFile.homeDirectory(of: 0, in: Self.passwd) == "/root")
        #expect(PasswordFile.homeDirectory(of: 1000, in: Self.passwd) == "/home/alice")
        #expect(PasswordFile.homeDirectory(of: 1001, in: Self.passwd) == nil)
        #expect(PasswordFile.homeDirectory(of: 5, in: Self.passwd) == nil)
        #expect(PasswordFile.homeDirectory(of: 4242, in: Self.passwd) == nil)
    }
}

@Suite struct LexicalPathTests {
    @Test(arguments: [
        ("/a/b/../c/./d/", "/", "/a/c/d"), ("x/y", "/home/u", "/home/u/x/y"), ("../..", "/home/u", "/"), ("/", "/tmp", "/"),
        ("/..", "/", "/"), ("//a//b", "/", "/a/b"), ("/x/\u{e9}t\u{e9}/..", "/", "/x"), ("a\tb/c d", "/r", "/r/a\tb/c d"),
    ])
    func normalisesWithoutTouchingAnyFilesystem(_ path: String, _ current: String, _ expected: String) {
        #expect(LexicalPath.normalize(path, currentDirectory: current) == expected)
    }
}
