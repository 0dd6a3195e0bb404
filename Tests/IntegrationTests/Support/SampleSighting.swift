import Foundation
import Testing

/// Proof that the daemon looked at a path: strace on its statfs(2) calls (every thread's),
/// each with the path and the figures the kernel gave it. "Nothing was published" means
/// something only once the daemon has sampled what changed, or sampled the idle disk all
/// along: a test waits for those samples, where a fixed sleep passes as well with a daemon
/// that did not sample at all (a sampling thread gone, an interval of an hour).
final class SampleSighting {
    static var available: Bool { Prerequisite.hasCommand("strace") }
    static let requirement: Comment = "needs strace (to see the daemon sample)"

    let paths: [String]
    private let scratch: ScratchDirectory
    private let trace: ProcessTrace
    private var stopped = false

    /// Attached to the daemon `pid` before it returns: the samples of `paths` from now on.
    init(pid: pid_t, paths: [String]) throws {
        self.paths = paths
        scratch = try ScratchDirectory("sighting")
        trace = try ProcessTrace(pid: pid, syscalls: "statfs", log: scratch.subpath("statfs.log"))
    }

    convenience init(pid: pid_t, path: String) throws {
        try self.init(pid: pid, paths: [path])
    }

    convenience init(_ daemon: some TestedDaemon, paths: [String]) throws {
        guard let pid = daemon.pid else { throw HarnessFailure("the daemon is not running") }
        try self.init(pid: pid, paths: paths)
    }

    convenience init(_ daemon: some TestedDaemon, path: String) throws {
        try self.init(daemon, paths: [path])
    }

    /// The daemon's statfs calls of `path` (the first path by default) so far, with what
    /// they read: one a sample (the quick reading), one or two more when a sample is news.
    func readings(of path: String? = nil) -> [Substring] {
        let call = "statfs(\"\(path ?? paths[0])\", {"
        return trace.soFar.split(separator: "\n").filter { $0.contains(call) }
    }

    /// How often each path was read so far, for a failure's message.
    var counts: String { paths.map { "\($0): \(readings(of: $0).count)" }.joined(separator: ", ") }

    /// Waits until the daemon has read every path `count` times since the sighting began
    /// (on an idle disk, `count` samples).
    func waitForSamples(_ count: Int, seconds: Double) -> Bool {
        waitUntil(seconds: seconds) { self.paths.allSatisfy { self.readings(of: $0).count >= count } }
    }

    /// Waits until the daemon has read the first path's figures as they are now (statvfs's
    /// free and available blocks, df's Used and Avail): it sampled what changed.
    func waitForSampleOfNow(seconds: Double = 10) throws -> Bool {
        let path = paths[0]
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw HarnessFailure("statvfs \(path): \(String(cString: strerror(errno)))") }
        let figures = "f_bfree=\(info.f_bfree), f_bavail=\(info.f_bavail),"
        return waitUntil(seconds: seconds) { self.readings(of: path).contains { $0.contains(figures) } }
    }

    /// Detaches from the daemon; what it read meanwhile stays in `readings`.
    func stop() {
        guard !stopped else { return }
        stopped = true
        _ = trace.stop()
    }

    deinit { stop() }
}
