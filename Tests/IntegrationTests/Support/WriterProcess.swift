/// Writes into one file at a fixed rate (512 KiB at a time, paced by the monotonic clock), as
/// a download or a runaway log does.
final class WriterProcess: PythonWriter {
    init(_ path: String, bytesPerSecond: Int, prefix: [String] = []) throws {
        try super.init(script: Self.script, arguments: [path, String(bytesPerSecond)], prefix: prefix)
    }

    private static let script = """
        import sys, time
        rate, chunk = int(sys.argv[2]), b"w" * (512 << 10)
        with open(sys.argv[1], "wb", buffering=0) as f:
            start, written = time.monotonic(), 0
            while True:
                while written < (time.monotonic() - start) * rate:
                    written += f.write(chunk)
                time.sleep(0.02)
        """
}
