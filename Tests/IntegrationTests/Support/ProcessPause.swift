import Foundation

/// Runs `body` while process `pid` is stopped (SIGSTOP, then SIGCONT).
///
/// Writing a file is not atomic as statvfs sees it: a daemon sampling every 100 ms can
/// catch a write half done and publish twice, once for each half. A test that counts
/// publishes makes its change while the daemon is stopped, so that the next sample sees it
/// whole.
func whileStopped<Result>(_ pid: pid_t, _ body: () throws -> Result) throws -> Result {
    guard kill(pid, SIGSTOP) == 0 else { throw HarnessFailure("kill(\(pid), SIGSTOP): \(String(cString: strerror(errno)))") }
    defer { kill(pid, SIGCONT) }
    // kill(2) returns before the threads have stopped; wait until every one of them has.
    let stopped = waitUntil(seconds: 5) {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"), !tasks.isEmpty else { return false }
        return tasks.allSatisfy { task in
            guard let stat = readProcFile("/proc/\(pid)/task/\(task)/stat"),
                  let end = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(end, offsetBy: 2)...].hasPrefix("T")
        }
    }
    guard stopped else { throw HarnessFailure("process \(pid) did not stop") }
    return try body()
}
