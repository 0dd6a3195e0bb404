/// Writes `bytes` into one file it keeps open, in one go, then sleeps until its next turn,
/// every `everySeconds` (paced by the monotonic clock): a bursty writer, as a backup, a build
/// or a browser's download flushes are.
final class PeriodicWriter: PythonWriter {
    init(_ path: String, bytes: Int, everySeconds: Double, prefix: [String] = []) throws {
        try super.init(script: Self.script, arguments: [path, String(bytes), String(everySeconds)], prefix: prefix)
    }

    private static let script = """
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
}
