import Testing
@testable import UsedSpaceCore

@Suite struct RealFilesystemsTests {
    /// A desktop's table: ext4 root with /run bound from it, a btrfs /home with a subvolume
    /// mounted twice, a USB stick, NFS, sshfs, snaps, tmpfs, and the usual pseudo mounts.
    static let desktop = #"""
    22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw
    23 22 0:21 / /proc rw,nosuid shared:5 - proc proc rw
    24 22 0:22 / /sys rw,nosuid shared:6 - sysfs sysfs rw
    25 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw,size=8M
    26 25 0:23 / /dev/pts rw shared:3 - devpts devpts rw
    27 25 0:24 / /dev/shm rw shared:4 - tmpfs tmpfs rw
    28 24 0:25 / /sys/fs/cgroup rw shared:9 - cgroup2 cgroup2 rw
    29 22 0:26 / /run rw shared:12 - tmpfs tmpfs rw,size=1600k
    30 22 0:31 /@home /home rw shared:30 - btrfs /dev/nvme0n1p3 rw,subvol=/@home
    31 22 0:31 /@data /srv/data rw shared:31 - btrfs /dev/nvme0n1p3 rw,subvol=/@data
    32 22 259:2 /var/lib/docker /mnt/docker rw - ext4 /dev/nvme0n1p2 rw
    33 22 7:1 / /snap/core22/1380 ro,nodev shared:40 - squashfs /dev/loop1 ro
    34 22 7:2 / /snap/firefox/4136 ro,nodev shared:41 - squashfs /dev/loop2 ro
    35 29 0:50 / /run/user/1000 rw shared:50 - tmpfs tmpfs rw
    36 35 0:51 / /run/user/1000/gvfs rw - fuse.gvfsd-fuse gvfsd-fuse rw
    37 22 8:17 / /media/u/USB\040STICK rw - vfat /dev/sdb1 rw
    38 22 0:60 / /mnt/nas rw - nfs4 nas:/export rw
    39 22 0:61 / /mnt/remote rw - fuse.sshfs me@host:/ rw
    40 22 0:62 / /var/lib/docker/overlay2/abc/merged rw - overlay overlay rw
    41 22 0:63 / /proc/sys/fs/binfmt_misc rw - binfmt_misc binfmt_misc rw
    """#

    static func points(_ entries: [MountEntry]) -> [String] { entries.map(\.mountPoint) }

    /// One rule of what may hang, by class: what list measures in a child and what status,
    /// watch and the daemon sample through a probe are the same filesystems.
    @Test(arguments: [
        ("ext4", false), ("btrfs", false), ("xfs", false), ("zfs", false), ("vfat", false),   // local block devices
        ("tmpfs", false), ("ramfs", false),                                                   // memory
        ("proc", false), ("sysfs", false), ("cgroup2", false),                                // the kernel's
        ("overlay", false), ("ecryptfs", false),                                              // stacked on local ones
        ("squashfs", false),                                                                  // loop images
        ("nfs4", true), ("cifs", true), ("9p", true), ("ceph", true),                          // network
        ("fuse", true), ("fuseblk", true), ("fuse.sshfs", true), ("fuse.gvfsd-fuse", true),   // FUSE
        ("autofs", true),                                                                     // mounts anything
        ("panfs", true), ("gfs2", true), ("ocfs2", true), ("virtiofs", true), ("newfs", true), // unknown to the list
    ])
    func whatMayHangIsEverythingNotKnownLocal(_ type: String, _ hangs: Bool) {
        #expect(RealFilesystems.mayHang(type) == hangs, "\(type)")
        #expect(RealFilesystems.isKnownLocal(type) == !hangs, "\(type)")
    }

    @Test func aDesktopShowsItsStorageOncePerFilesystem() {
        let selected = RealFilesystems.select(MountInfoParser.parse(Self.desktop))
        #expect(Self.points(selected) == ["/", "/home", "/media/u/USB STICK", "/mnt/nas", "/mnt/remote"])
    }

    @Test func loopImagesAndMemoryFilesystemsWhenAsked() {
        let entries = MountInfoParser.parse(Self.desktop)
        #expect(Self.points(RealFilesystems.select(entries, includeLoopImages: true)) == [
            "/", "/home", "/snap/core22/1380", "/snap/firefox/4136", "/media/u/USB STICK", "/mnt/nas", "/mnt/remote",
        ])
        #expect(Self.points(RealFilesystems.select(entries, includeMemoryFilesystems: true)) == [
            "/", "/dev/shm", "/run", "/home", "/run/user/1000", "/media/u/USB STICK", "/mnt/nas", "/mnt/remote",
        ])
    }

    @Test func theMountOfTheRootWinsOverAnEarlierBindOfASubdirectory() {
        let table = """
        40 1 8:1 / / rw - ext4 /dev/sda1 rw
        41 40 8:2 /photos /home/u/photos rw - ext4 /dev/sda2 rw
        42 40 8:2 / /data rw - ext4 /dev/sda2 rw
        43 40 8:2 / /data2 rw - ext4 /dev/sda2 rw
        """
        let selected = RealFilesystems.select(MountInfoParser.parse(table))
        #expect(selected.map(\.mountID) == [40, 42])
    }

    @Test func aSubvolumeOnlyFilesystemKeepsItsEarliestMount() {
        let table = """
        40 1 0:31 /@ / rw - btrfs /dev/sda2 rw
        41 40 0:31 /@home /home rw - btrfs /dev/sda2 rw
        """
        #expect(RealFilesystems.select(MountInfoParser.parse(table)).map(\.mountID) == [40])
    }

    /// This machine's own table (a VM sandbox): /dev/shm and /dev/pts are each mounted
    /// twice on one point (the later covers the earlier), /run is a bind of the root disk.
    @Test func stackedMountsOnOnePointShowOnlyTheTopOne() {
        let table = """
        22 27 0:21 / /proc rw,relatime - proc proc rw
        24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw
        25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw
        26 24 0:24 / /dev/pts rw,relatime - devpts devpts rw
        27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
        29 26 0:26 / /dev/pts rw,relatime - devpts devpts rw
        30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw
        43 27 254:0 /run /run rw,relatime - ext4 /dev/vda rw
        """
        let entries = MountInfoParser.parse(table)
        #expect(RealFilesystems.measurable(entries).map(\.mountID) == [22, 24, 27, 29, 30, 43])
        #expect(RealFilesystems.select(entries).map(\.mountID) == [27])
        #expect(RealFilesystems.select(entries, includeMemoryFilesystems: true).map(\.mountID) == [27, 30])
    }

    @Test func aMountCoveredByALaterMountAboveItIsLeftOut() {
        let table = """
        1 0 8:1 / / rw - ext4 /dev/sda1 rw
        2 1 8:2 / /mnt/a rw - ext4 /dev/sda2 rw
        3 1 8:3 / /mnt rw - ext4 /dev/sda3 rw
        4 3 8:4 / /mnt/b rw - ext4 /dev/sda4 rw
        """
        // /mnt/a was mounted on the root's /mnt directory, which /mnt (3) now covers;
        // /mnt/b sits on 3 and is visible.
        #expect(RealFilesystems.select(MountInfoParser.parse(table)).map(\.mountID) == [1, 3, 4])
    }

    @Test func anOverlayCountsOnlyAsAContainersRoot() {
        let container = """
        600 500 0:70 / / rw - overlay overlay rw,lowerdir=/l,upperdir=/u
        601 600 0:71 / /proc rw - proc proc rw
        602 600 254:1 /var/lib/docker/containers/x/hosts /etc/hosts rw - ext4 /dev/vda1 rw
        """
        #expect(RealFilesystems.select(MountInfoParser.parse(container)).map(\.mountID) == [600, 602])
    }

    @Test func kindsOfTypes() {
        #expect(RealFilesystems.kind(of: "ext4") == .local)
        #expect(RealFilesystems.kind(of: "cgroup2") == .pseudo)
        #expect(RealFilesystems.kind(of: "fuse.gvfsd-fuse") == .pseudo)
        #expect(RealFilesystems.kind(of: "fuse.hangfs") == .fuse)
        #expect(RealFilesystems.kind(of: "fuseblk") == .fuse)
        #expect(RealFilesystems.kind(of: "fuse.sshfs") == .network)
        #expect(RealFilesystems.kind(of: "tmpfs") == .memory)
        #expect(RealFilesystems.kind(of: "squashfs") == .loopImage)
        #expect(RealFilesystems.kind(of: "overlay") == .stacked)
        #expect(RealFilesystems.kind(of: "a-type-nobody-knows") == .local)
    }

    @Test func networkAndKnownLocalTypes() {
        for type in ["nfs", "nfs4", "cifs", "smb3", "sshfs", "fuse.sshfs", "9p", "ceph", "glusterfs"] {
            #expect(RealFilesystems.isNetwork(type), "\(type)")
            #expect(!RealFilesystems.isKnownLocal(type), "\(type)")
        }
        for type in ["ext4", "xfs", "btrfs", "vfat", "tmpfs", "squashfs"] {
            #expect(RealFilesystems.isKnownLocal(type), "\(type)")
            #expect(!RealFilesystems.isNetwork(type), "\(type)")
        }
        // The kernel's pseudo filesystems answer from memory; autofs may mount anything.
        #expect(RealFilesystems.isKnownLocal("proc") && RealFilesystems.isKnownLocal("cgroup2"))
        #expect(!RealFilesystems.isKnownLocal("autofs"))
        #expect(!RealFilesystems.isKnownLocal("fuse.gvfsd-fuse") && !RealFilesystems.isKnownLocal("fusectl"))
        #expect(!RealFilesystems.isKnownLocal("fuse.squashfuse"))
        // FUSE and unknown types may hang: not known local.
        #expect(!RealFilesystems.isKnownLocal("fuse.hangfs"))
        #expect(!RealFilesystems.isKnownLocal("fuseblk"))
        #expect(!RealFilesystems.isKnownLocal("a-type-nobody-knows"))
    }

    @Test func oddTablesDoNotTrapTheRule() {
        // A mount that names itself as parent, a parent loop, an empty table.
        let table = """
        5 5 8:1 / / rw - ext4 /dev/sda1 rw
        6 7 8:2 / /a rw - ext4 /dev/sda2 rw
        7 6 8:3 / /a/b rw - ext4 /dev/sda3 rw
        """
        #expect(RealFilesystems.select(MountInfoParser.parse(table)).map(\.mountID) == [5, 6, 7])
        #expect(RealFilesystems.select([]).isEmpty)
        #expect(RealFilesystems.ancestorDirectories(of: "/a/b/c") == ["/", "/a", "/a/b"])
        #expect(RealFilesystems.ancestorDirectories(of: "/") == [])
    }
}
