import Foundation

/// A writer of its own: python3 running `script` with `arguments`, a process /proc shows with
/// its own pid, name (python3) and open file. `prefix` runs it as someone else (setpriv, or a
/// user's session). Ended with SIGKILL: the test process blocks SIGTERM, and Foundation's
/// Process passes its mask on. WriterProcess and PeriodicWriter say what it writes.
class PythonWriter {
    let process = Process()
    var pid: Int32 { process.processIdentifier }

    init(script: String, arguments: [String], prefix: [String]) throws {
        let command = prefix + ["/usr/bin/python3", "-c", script] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        try process.run()
    }

    /// Once: a pid reaped may be someone else's by now.
    func end() {
        guard process.isRunning else { return }
        kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    deinit { end() }
}
