import Foundation

/// A long-running helper (systemd --user, journald) started with posix_spawn rather than
/// Foundation's Process: those programs close every inherited descriptor at start, which
/// Foundation takes for the child's exit, and it then blocks in waitpid on it and stops
/// reaping every other child of the test process.
final class SpawnedProcess {
    let pid: pid_t
    private var exitStatus: Int32?

    init(_ executable: String, _ arguments: [String], environment: [String: String], logFile: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logFile, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw HarnessFailure("posix_spawn \(executable): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid || (result < 0 && errno == ECHILD) {
            exitStatus = status
            return false
        }
        return true
    }

    /// SIGTERM, then SIGKILL if it has not exited within `seconds`.
    func stop(seconds: Double = 10) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        if !waitUntil(seconds: seconds, { !self.isRunning }) {
            kill(pid, SIGKILL)
            _ = waitUntil(seconds: 5) { !self.isRunning }
        }
    }

    deinit { stop(seconds: 5) }
}
