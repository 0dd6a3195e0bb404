import Foundation

/// A process of its own writing into one file at a fixed rate (512 KiB at a time, paced by
/// the monotonic clock), as a download or a runaway log does: a writer /proc shows with its
/// own pid, name (python3) and open file. `prefix` runs it as someone else (setpriv, or a
/// user's session). Ended with SIGKILL: the test process blocks SIGTERM, and Foundation's
/// Process passes its mask on.
final class WriterProcess {
    let process = Process()
    var pid: Int32 { process.processIdentifier }

    init(_ path: String, bytesPerSecond: Int, prefix: [String] = []) throws {
        let script = """
            import sys, time
            rate, chunk = int(sys.argv[2]), b"w" * (512 << 10)
            with open(sys.argv[1], "wb", buffering=0) as f:
                start, written = time.monotonic(), 0
                while True:
                    while written < (time.monotonic() - start) * rate:
                        written += f.write(chunk)
                    time.sleep(0.02)
            """
        let command = prefix + ["/usr/bin/python3", "-c", script, path, String(bytesPerSecond)]
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
