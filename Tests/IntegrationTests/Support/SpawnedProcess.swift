import Foundation
import CTestSupport

/// A long-running helper (systemd --user, journald) started with posix_spawn rather than
/// Foundation's Process: those programs close every inherited descriptor at start, which
/// Foundation takes for the child's exit, and it then blocks in waitpid on it and stops
/// reaping every other child of the test process.
final class SpawnedProcess {
    let pid: pid_t
    private var exitStatus: Int32?

    /// Output (stdout and stderr) goes to `logFile`. The child starts with no signal blocked
    /// and every signal at its default (the test's threads block most, and a child would
    /// inherit that); with `processGroup`, in a process group of its own, to be signalled
    /// with all it starts (`signalGroup`).
    init(_ executable: String, _ arguments: [String], environment: [String: String], logFile: String, processGroup: Bool = false) throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if processGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logFile, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of the test process's: a descriptor without close-on-exec (Foundation's
        // Pipe makes them so) would live on in this long-running child, such as the read end
        // of another test's `watch` output, which then never sees its reader go.
        test_spawn_close_from(&actions, 3)
        let words: [String] = [executable] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
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

    /// Sends `signal` to the process group it leads (`processGroup`).
    func signalGroup(_ signal: Int32) {
        kill(-pid, signal)
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
