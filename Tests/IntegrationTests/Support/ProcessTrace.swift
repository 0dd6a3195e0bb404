import Foundation

/// strace attached to a running process and all its threads, for some system calls: what
/// it called meanwhile. Attached before `init` returns; `stop()` detaches and gives the log.
final class ProcessTrace {
    private let process: SpawnedProcess
    private let log: String
    private let output: String

    init(pid: pid_t, syscalls: String, log: String) throws {
        self.log = log
        output = log + ".strace"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        process = try SpawnedProcess("/usr/bin/strace", ["-f", "-qq", "-p", String(pid), "-e", "trace=" + syscalls, "-o", log],
                                     environment: ProcessInfo.processInfo.environment, logFile: output)
        // strace has every thread once it reports the process's threads in TracerPid.
        let attached = waitUntil(seconds: 10) {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return !tasks.isEmpty && tasks.allSatisfy {
                (readProcFile("/proc/\(pid)/task/\($0)/status") ?? "").contains("TracerPid:\t\(self.process.pid)\n")
            }
        }
        guard attached else {
            process.stop(seconds: 5)
            throw HarnessFailure("strace did not attach: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        }
    }

    /// The calls it saw so far, a line each (strace writes each line as the call returns).
    var soFar: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Detaches (strace detaches on SIGTERM) and returns the calls it saw, a line each.
    func stop() -> String {
        process.stop(seconds: 10)
        return (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    }
}
