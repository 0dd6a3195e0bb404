import Foundation

/// A real btrfs filesystem for a test: image files under a scratch directory, attached to
/// loop devices (losetup), made with mkfs.btrfs and mounted; unmounted, detached and removed
/// afterwards. And what btrfs-progs says about it, to compare ours with.
final class BtrfsMount {
    static var available: Bool {
        Prerequisite.isRoot && ["mkfs.btrfs", "btrfs", "losetup"].allSatisfy(Prerequisite.hasCommand)
            && ((readProcFile("/proc/filesystems") ?? "").contains("\tbtrfs") || (try? CommandRunner.shell("modprobe btrfs")) != nil)
    }

    static let prerequisite = Prerequisite.enabled(available, "needs root, btrfs-progs (mkfs.btrfs, btrfs), losetup and btrfs in the kernel")

    let scratch: ScratchDirectory
    let mountPoint: String
    private(set) var devices: [String] = []
    private var mounted = false

    /// `sizes` in MiB, one loop device each; `options` for mkfs.btrfs (e.g. -d raid1 -m raid1).
    init(_ label: String, sizes: [Int], options: [String] = [], mountOptions: String = "") throws {
        scratch = try ScratchDirectory("btrfs-\(label)")
        mountPoint = scratch.subpath("mnt")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        for (index, size) in sizes.enumerated() {
            let image = scratch.subpath("disk\(index).img")
            try CommandRunner.shell("truncate -s \(size)M \(quoted(image))")
            devices.append(try CommandRunner.shell("losetup --find --show \(quoted(image))").trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try CommandRunner.shell("mkfs.btrfs -q -f \(options.map(quoted).joined(separator: " ")) \(devices.map(quoted).joined(separator: " "))")
        try mount(options: mountOptions)
    }

    func mount(options: String = "") throws {
        try CommandRunner.shell("mount -t btrfs \(options.isEmpty ? "" : "-o \(options) ")\(quoted(devices[0])) \(quoted(mountPoint))")
        mounted = true
    }

    func unmount() throws {
        try CommandRunner.shell("umount \(quoted(mountPoint))")
        mounted = false
    }

    /// Writes what is pending and commits the transaction, so that sysfs and btrfs-progs
    /// read the same state.
    func sync() throws {
        try CommandRunner.shell("sync && btrfs filesystem sync \(quoted(mountPoint))")
    }

    /// `btrfs filesystem usage -b`'s Overall figures by name ("Device unallocated", "Data ratio"…).
    func usage() throws -> [String: String] {
        let text = try CommandRunner.shell("btrfs filesystem usage -b \(quoted(mountPoint)) 2>/dev/null")
        var figures: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
            figures[parts[0].trimmingCharacters(in: .whitespaces)] = value
        }
        return figures
    }

    /// `btrfs filesystem df -b`: for each kind ("Data", "Metadata", "System"), its profile
    /// and total.
    func chunks() throws -> [String: (profile: String, total: UInt64)] {
        let text = try CommandRunner.shell("btrfs filesystem df -b \(quoted(mountPoint))")
        var result: [String: (String, UInt64)] = [:]
        for line in text.split(separator: "\n") {
            // "Data, single: total=8388608, used=0"
            guard let match = line.firstMatch(of: /^(\w+), (\w+): total=(\d+), used=(\d+)/) else { continue }
            result[String(match.output.1)] = (String(match.output.2), UInt64(match.output.3)!)
        }
        return result
    }

    deinit {
        if mounted { _ = try? CommandRunner.shell("umount -l \(quoted(mountPoint))") }
        for device in devices { _ = try? CommandRunner.shell("losetup -d \(quoted(device))") }
    }
}
