import Foundation

/// A process of its own that writes `bytes` into one file it keeps open, in one go, then
/// sleeps until its next turn, every `everySeconds` (paced by the monotonic clock): a bursty
/// writer, as a backup, a build or a browser's download flushes are. /proc shows it as
/// python3 with its own pid and open file. `prefix` runs it as someone else (setpriv, or a
/// user's session). Ended with SIGKILL (see WriterProcess).
final class PeriodicWriter {
    let process = Process()
    var pid: Int32 { process.processIdentifier }

    init(_ path: String, bytes: Int, everySeconds: Double, prefix: [String] = []) throws {
        let script = """
            import sys, time
            size, period = int(sys.argv[2]), float(sys.argv[3])
            chunk = b"b" * size
            with open(sys.argv[1], "wb", buffering=0) as f:
                start, turn = time.monotonic(), 0
                while True:
                    f.write(chunk)
                    turn += 1
                    time.sleep(max(0.0, start + turn * period - time.monotonic()))
            """
        let command = prefix + ["/usr/bin/python3", "-c", script, path, String(bytes), String(everySeconds)]
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
