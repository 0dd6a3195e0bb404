import CLinux

/// Writes to the standard streams with write(2), all of it or not at all, so a status bar
/// never sees half a line.
public enum StandardStreams {
    /// Returns false when the reader has gone away (EPIPE) or the stream is otherwise broken;
    /// callers that stream (watch) stop then. SIGPIPE must be ignored for EPIPE to arrive.
    @discardableResult
    public static func write(_ text: String, to descriptor: Int32 = STDOUT_FILENO) -> Bool {
        var text = text
        return text.withUTF8 { buffer in
            (try? FileDescriptor.writeAll(UnsafeRawBufferPointer(buffer), to: descriptor)) != nil
        }
    }

    public static func error(_ line: String) {
        write(line.hasSuffix("\n") ? line : line + "\n", to: STDERR_FILENO)
    }

    /// So that a vanished reader is an EPIPE error to handle, not a silent death.
    public static func ignoreBrokenPipes() {
        clinux_ignore_signal(SIGPIPE)
    }
}
