import Foundation

/// Real filesystems for a test: a tmpfs of a given size, or a loop-mounted ext4 image with
/// reserved blocks, under a fresh temporary directory, unmounted and removed afterwards.
final class ScratchDirectory {
    let path: String

    init(_ label: String) throws {
        path = try Self.make(label)
    }

    /// A new empty directory under /tmp, readable by all (tests switch users).
    static func make(_ label: String) throws -> String {
        let template = "/tmp/usedspace-\(label)-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else { throw HarnessFailure("mkdtemp: \(String(cString: strerror(errno)))") }
        let path = String(cString: bytes)
        chmod(path, 0o755)
        return path
    }

    private var mounted: [String] = []

    func subpath(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func mountTmpfs(at name: String, options: String) throws -> String {
        let target = subpath(name)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try CommandRunner.shell("mount -t tmpfs -o \(options) tmpfs \(quoted(target))")
        mounted.append(target)
        return target
    }

    /// An ext4 image of `megabytes` with `reservedPercent` of its blocks reserved for root.
    @discardableResult
    func mountExt4(at name: String, megabytes: Int, reservedPercent: Int) throws -> String {
        let image = subpath(name + ".img")
        let target = subpath(name)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try CommandRunner.shell("truncate -s \(megabytes)M \(quoted(image)) && mkfs.ext4 -q -F -m \(reservedPercent) \(quoted(image))")
        try CommandRunner.shell("mount -o loop \(quoted(image)) \(quoted(target))")
        mounted.append(target)
        return target
    }

    func unmount(_ target: String) throws {
        try CommandRunner.shell("umount \(quoted(target))")
        mounted.removeAll { $0 == target }
    }

    deinit {
        for target in mounted.reversed() { _ = try? CommandRunner.shell("umount -l \(quoted(target))") }
        try? FileManager.default.removeItem(atPath: path)
    }
}

func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
