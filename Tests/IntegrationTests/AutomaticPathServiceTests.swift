import Foundation
import Testing

/// `path = auto` in the unit's sandbox, as users run it: the service has a mount namespace
/// of its own (ProtectSystem=strict, ProtectHome, PrivateUsers…), into which the machine's
/// new mounts propagate, and in which the kernel signals them; mounts this user cannot
/// reach are not watched.
@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(SystemdUserManager.unprivilegedAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
                            "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter and python3"))
struct AutomaticPathServiceTests {
    @Test func theSandboxedServiceFollowsAMountMadeAfterItStarted() throws {
        // Its service watches every mount: not while another test's FUSE mount hangs.
        HangingMountExclusion.acquire()
        defer { HangingMountExclusion.release() }
        let fixture = try HardeningTests.Fixture()
        try fixture.manager.writeConfig("[daemon]\npath = ~\npath = auto\ninterval = 100ms\n")
        // Where a desktop mounts a USB disk (/media, /run/media). systemd makes every mount
        // shared at boot, so that the services' namespaces (slaves) receive new mounts; this
        // machine's PID 1 is not systemd and / is private here: the directory is made a
        // shared mount of its own, as it would be, before the service starts.
        var template = Array("/mnt/usedspace-media-XXXXXX".utf8CString)
        let media = try #require(mkdtemp(&template).map { String(cString: $0) })
        chmod(media, 0o755)
        try CommandRunner.shell("mount --bind \(quoted(media)) \(quoted(media)) && mount --make-shared \(quoted(media))")
        let usb = media + "/usb"
        defer {
            _ = try? CommandRunner.shell("umount -l \(quoted(usb)); umount -l \(quoted(media))")
            rmdir(usb)
            rmdir(media)
        }
        // One it may not reach: under a directory closed to the user.
        let closed = fixture.scratch.subpath("closed")
        try FileManager.default.createDirectory(atPath: closed + "/disk", withIntermediateDirectories: true)
        chmod(closed, 0o700)
        let closedImage = fixture.scratch.subpath("closed.img")
        try CommandRunner.shell("truncate -s 16M \(quoted(closedImage)) && mkfs.ext4 -q -F \(quoted(closedImage)) && mount -o loop \(quoted(closedImage)) \(quoted(closed + "/disk"))")
        defer { _ = try? CommandRunner.shell("umount -l \(quoted(closed + "/disk"))") }

        #expect(try fixture.manager.systemctl("start", "usedspace.socket").status == 0)
        func status() -> (status: Int32, paths: [String], text: String) {
            guard let result = try? fixture.manager.usedspace("status", "--all", "--format", "json") else { return (-1, [], "") }
            let paths = result.stdout.split(separator: "\n").compactMap {
                guard let object = try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any],
                      object["source"] as? String == "daemon" else { return nil }
                return object["path"] as? String
            } as [String]
            return (result.status, paths, result.stdout + result.stderr)
        }
        let first = status()
        #expect(first.status == 0 && !first.paths.isEmpty, "\(first.text)")
        #expect(!first.paths.contains(closed + "/disk"), "a filesystem the user cannot reach is not watched: \(first.text)")

        try FileManager.default.createDirectory(atPath: usb, withIntermediateDirectories: true)
        let image = fixture.scratch.subpath("usb.img")
        try CommandRunner.shell("truncate -s 32M \(quoted(image)) && mkfs.ext4 -q -F \(quoted(image)) && mount -o loop \(quoted(image)) \(quoted(usb))")
        #expect(waitUntil(seconds: 10) { status().paths.contains(usb) }, "the service does not see \(usb): \(status().text)")
        try CommandRunner.shell("umount \(quoted(usb))")
        #expect(waitUntil(seconds: 10) { let now = status(); return now.status == 0 && !now.paths.isEmpty && !now.paths.contains(usb) },
                "still watched: \(status().text)")
    }
}
