import Logging
import UsedSpaceCore
import UsedSpaceSystem

/// Reads the daemon's files at start-up (and its configuration at each reload) so that a
/// directory on a filesystem that hangs (a home on a dead NFS server) holds the daemon up
/// for one timeout at most, never for good: each file is read in a child process that can
/// be left behind (IsolatedFileRead), and once one read of a directory has timed out the
/// others there are not tried.
struct StartupFileReader {
    let timeoutMicroseconds: UInt64
    let logger: Logger
    private var unresponsiveDirectories: [String] = []

    init(timeoutMicroseconds: UInt64, logger: Logger) {
        self.timeoutMicroseconds = timeoutMicroseconds
        self.logger = logger
    }

    /// The file's text; nil when it does not exist, and (logged, with the reason) when it
    /// cannot be read. `what` names it for the log: "the state file".
    mutating func read(_ path: String, limit: Int, what: String) -> String? {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        guard !unresponsiveDirectories.contains(directory) else { return nil }
        do {
            return try IsolatedFileRead.readText(path, limit: limit, timeoutMicroseconds: timeoutMicroseconds)
        } catch {
            if error.isNotFound { return nil }
            if case .timedOut = error { unresponsiveDirectories.append(directory) }
            logger.warning("cannot read \(what) \(path): \(error); starting without it, it will be replaced",
                           metadata: ["file": "\(path)", "reason": "\(error)"])
            return nil
        }
    }
}
