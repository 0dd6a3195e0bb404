import CLinux

/// The terminal a stream writes to, if any: whether there is one (for colours), and its
/// width (so that a line is never wrapped).
public enum Terminal {
    /// Whether `descriptor` is a terminal, whatever size it says it has (a new pty, a serial
    /// console may say none).
    public static func isTerminal(_ descriptor: Int32 = STDOUT_FILENO) -> Bool {
        isatty(descriptor) == 1
    }

    /// Columns of the terminal on `descriptor`; nil when it is not a terminal (a pipe, a
    /// file, a status bar) or does not say.
    public static func columns(of descriptor: Int32 = STDOUT_FILENO) -> Int? {
        let columns = clinux_terminal_columns(descriptor)
        return columns > 0 ? Int(columns) : nil
    }
}
