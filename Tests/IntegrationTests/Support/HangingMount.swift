import Foundation

/// A real FUSE mount that stops answering while a flag file exists (Tests/Fixtures/hangfs.py):
/// a dead network filesystem, on demand. Every operation hangs, as on a dead NFS server
/// (lookup, getattr, readdir, open, read, statfs), none answered from the kernel's cache.
/// It shows `backing` read-only: files put there appear under the mount point.
/// A FUSE mount that hangs is every other test's watched filesystem when that test's
/// daemon watches every mount of the machine (`path = auto`): a sandboxed service asked for
/// `status --all` then waits for it, and the hung server's queue slows the hanging tests'
/// own commands. Such tests hold this while they run (a semaphore: a test may end on
/// another thread than it began). HangingMount holds it while mounted.
enum HangingMountExclusion {
    private static let semaphore = DispatchSemaphore(value: 1)

    static func acquire() { semaphore.wait() }
    static func release() { semaphore.signal() }

    /// Held from its making to its end: released exactly once, whether the mount's set-up
    /// failed half-way or the mount ended.
    final class Hold {
        init() { HangingMountExclusion.acquire() }
        deinit { HangingMountExclusion.release() }
    }
}

final class HangingMount {
    let mountPoint: String
    let flag: String
    /// What the mount shows; write here, not through the mount (which is read-only).
    let backing: String
    private let process: Process
    private let exclusion: HangingMountExclusion.Hold
    private let scratch: String

    static var available: Bool {
        Prerequisite.isRoot && FileManager.default.fileExists(atPath: "/dev/fuse")
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/fusepy.py")
            && Prerequisite.hasCommand("fusermount3")
    }

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/hangfs.py").path

    /// Mounted at a directory of its own, or `over` an existing directory (another
    /// filesystem mounted over a watched path); `hanging` from its first call on.
    init(over existing: String? = nil, hanging: Bool = false) throws {
        exclusion = HangingMountExclusion.Hold()
        scratch = try ScratchDirectory.make("hangfs")
        mountPoint = existing ?? scratch + "/mnt"
        flag = scratch + "/hang"
        backing = scratch + "/backing"
        if existing == nil { try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true) }
        try FileManager.default.createDirectory(atPath: backing, withIntermediateDirectories: true)
        if hanging { FileManager.default.createFile(atPath: flag, contents: nil) }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.fixture, mountPoint, flag, backing]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let isMounted = waitUntil(seconds: 10) {
            (readProcFile("/proc/self/mountinfo") ?? "").contains(" \(self.mountPoint) ")
        }
        guard isMounted else { throw HarnessFailure("hangfs did not mount at \(mountPoint)") }
    }

    /// From now on every call on the mount blocks.
    func hang() { FileManager.default.createFile(atPath: flag, contents: nil) }

    /// From now on only statvfs blocks (a server that still answers lookups).
    func hangStatfsOnly() {
        FileManager.default.createFile(atPath: flag + ".only-statfs", contents: nil)
        hang()
    }

    /// Blocked callers return; new ones answer at once.
    func release() {
        try? FileManager.default.removeItem(atPath: flag)
        try? FileManager.default.removeItem(atPath: flag + ".only-statfs")
    }

    /// The numbers statfs reports from now on (4096-byte blocks).
    func report(blocks: Int, free: Int, available: Int) throws {
        try "\(blocks) \(free) \(available)\n".write(toFile: flag + ".numbers", atomically: true, encoding: .utf8)
    }

    deinit {
        release()
        _ = try? CommandRunner.run("/usr/bin/fusermount3", ["-u", "-z", mountPoint], timeout: 10)
        process.terminate()
        _ = waitUntil(seconds: 5) { !self.process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: scratch)
        // The hold is released after this, with the stored properties.
    }
}
