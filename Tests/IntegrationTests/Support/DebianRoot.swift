import Foundation

/// The Debian package under test: the .deb that `make deb` built, named by USEDSPACE_DEB
/// (`.ci/run` sets it to `make -s deb-path`). Without it the package tests are skipped
/// (CI, which builds it, requires them).
enum DebianPackage {
    static var path: String? {
        guard let path = ProcessInfo.processInfo.environment["USEDSPACE_DEB"], !path.isEmpty else { return nil }
        return path
    }

    static var available: Bool { path.map { FileManager.default.fileExists(atPath: $0) } ?? false }

    static let missing = "needs the package: make deb, then USEDSPACE_DEB=$(make -s deb-path) swift test"

    /// The package's path, or a failure that says how to build it.
    static func require() throws -> String {
        guard let path, FileManager.default.fileExists(atPath: path) else {
            throw HarnessFailure("no .deb at USEDSPACE_DEB=\(self.path ?? "(unset)"): \(missing)")
        }
        return path
    }

    /// A control field of the package (`dpkg-deb -f`).
    static func field(_ name: String, of deb: String) throws -> String {
        try CommandRunner.run("/usr/bin/dpkg-deb", ["-f", deb, name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The package's members as (mode string, path without the leading "."), from `dpkg-deb -c`.
    static func contents(of deb: String) throws -> [(mode: String, owner: String, path: String)] {
        let listing = try CommandRunner.run("/usr/bin/dpkg-deb", ["-c", deb])
        guard listing.status == 0 else { throw HarnessFailure("dpkg-deb -c: \(listing.stderr)") }
        return listing.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6 else { return nil }
            var path = fields[5...].joined(separator: " ")
            if let arrow = path.range(of: " -> ") { path = String(path[..<arrow.lowerBound]) }
            if path.hasPrefix(".") { path.removeFirst() }
            if path.count > 1, path.hasSuffix("/") { path.removeLast() }
            return (String(fields[0]), String(fields[1]), path)
        }
    }

    /// Whether usedspace is installed on this machine, by dpkg or by hand into /usr (what a
    /// test that installs the package here must not replace).
    static var installedHere: Bool {
        let status = try? CommandRunner.run("/usr/bin/dpkg-query", ["-W", "-f", "${Status}", "usedspace"])
        if let status, status.status == 0, status.stdout.hasSuffix(" installed") { return true }
        return ["/usr/bin/usedspace", "/usr/bin/usedspaced", "/usr/lib/systemd/user/usedspace.socket", "/usr/lib/systemd/user/usedspace.service"]
            .contains { FileManager.default.fileExists(atPath: $0) }
    }
}

/// A clean Debian 12 root, made by debootstrap (`--variant=minbase bookworm`) from the Debian
/// archive, for installing the package where there is no Swift toolchain and nothing of the
/// build. debootstrap runs once per machine: its result is kept in
/// /var/cache/usedspace-tests/bookworm-minbase (USEDSPACE_DEBOOTSTRAP_CACHE to change it;
/// delete it to start afresh) and each test works on a copy of it on a tmpfs of its own.
///
/// Commands run in it with chroot, in a mount and PID namespace of their own
/// (`unshare --mount --pid --fork`) where the root is a bind mount of itself (so that
/// /proc/self/mountinfo has a "/" in it, as in any real system or container) and /proc is
/// mounted: every mount goes away with the command, none is left to unmount, and removing
/// the copy never reaches outside it.
final class DebianRoot {
    static let mirror = ProcessInfo.processInfo.environment["USEDSPACE_DEBIAN_MIRROR"] ?? "http://deb.debian.org/debian"
    static let cache = ProcessInfo.processInfo.environment["USEDSPACE_DEBOOTSTRAP_CACHE"] ?? "/var/cache/usedspace-tests/bookworm-minbase"

    static var available: Bool {
        Prerequisite.isRoot && ["/usr/sbin/debootstrap", "/usr/bin/unshare", "/usr/sbin/chroot"]
            .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    let scratch: ScratchDirectory
    let root: String
    /// How long debootstrap took, when this test had to run it (nil: the cache was there).
    let debootstrapSeconds: Double?

    init() throws {
        debootstrapSeconds = try Self.prepareCache()
        scratch = try ScratchDirectory("debian-root")
        // On a tmpfs: the copy, apt's work and its removal leave the root filesystem alone,
        // which other tests compare with df while they run.
        root = try scratch.mountTmpfs(at: "fs", options: "size=2g,mode=755") + "/root"
        try CommandRunner.shell("cp -a \(quoted(Self.cache + "/root")) \(quoted(root))", timeout: 300)
    }

    /// Runs debootstrap into the cache unless a complete result is there. A lock keeps two
    /// test processes from building it at once; a result is complete once renamed into place.
    private static func prepareCache() throws -> Double? {
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let lock = open(cache + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw HarnessFailure("open \(cache)/lock: \(String(cString: strerror(errno)))") }
        defer { close(lock) }
        guard flock(lock, LOCK_EX) == 0 else { throw HarnessFailure("flock \(cache)/lock: \(String(cString: strerror(errno)))") }
        if FileManager.default.fileExists(atPath: cache + "/root/etc/debian_version") { return nil }
        let partial = cache + "/root.partial"
        // What a debootstrap that was interrupted may have left mounted there (its second
        // stage mounts /proc and /sys in the target), before removing it.
        _ = try? CommandRunner.shell("awk '{print $5}' /proc/self/mountinfo | grep '^\(partial)/' | sort -r | while read -r m; do umount -l \"$m\"; done; true")
        try? FileManager.default.removeItem(atPath: partial)
        let started = Date()
        let result = try CommandRunner.run("/usr/sbin/debootstrap", ["--variant=minbase", "bookworm", partial, mirror],
                                           environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"], timeout: 900)
        guard result.status == 0 else {
            throw HarnessFailure("debootstrap --variant=minbase bookworm \(partial) \(mirror) failed (\(result.status)): \(result.stdout.suffix(2000))\(result.stderr.suffix(2000))")
        }
        guard rename(partial, cache + "/root") == 0 else { throw HarnessFailure("rename \(partial): \(String(cString: strerror(errno)))") }
        return Date().timeIntervalSince(started)
    }

    /// Runs a shell script in the root, as root, with a plain environment.
    func run(_ script: String, stdin: String? = nil, timeout: TimeInterval = 300) throws -> CommandResult {
        let inside = "mount --bind \(quoted(root)) \(quoted(root)) && mount -t proc proc \(quoted(root + "/proc")) && exec chroot \(quoted(root)) /bin/sh -c \(quoted(script))"
        return try CommandRunner.run("/usr/bin/unshare", ["--mount", "--pid", "--fork", "/bin/sh", "-c", inside],
                                     environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8",
                                                   "DEBIAN_FRONTEND": "noninteractive"],
                                     stdin: stdin.map { Data($0.utf8) }, timeout: timeout)
    }

    /// `run`, failing when the script does.
    @discardableResult
    func shell(_ script: String, timeout: TimeInterval = 300) throws -> String {
        let result = try run(script, timeout: timeout)
        guard result.status == 0 else { throw ShellFailure(command: "(in \(root)) " + script, result: result) }
        return result.stdout
    }

    /// Every path in the root (relative, with a leading "/"), but the ones that dpkg and apt
    /// keep for themselves, logs, caches and scratch space.
    func paths() throws -> Set<String> {
        let listing = try CommandRunner.shell("cd \(quoted(root)) && find . -xdev", timeout: 120)
        let ignored = ["/var/lib/dpkg", "/var/lib/apt", "/var/cache", "/var/log", "/tmp", "/run", "/proc"]
        return Set(listing.split(separator: "\n").map { String($0.dropFirst()) }.filter { path in
            !path.isEmpty && !ignored.contains { path == $0 || path.hasPrefix($0 + "/") }
        })
    }
}
