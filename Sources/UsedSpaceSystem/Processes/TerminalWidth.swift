import CLinux

/// The width of the terminal a stream writes to, so that a line is never wrapped.
public enum TerminalWidth {
    /// Columns of the terminal on `descriptor`; nil when it is not a terminal (a pipe, a
    /// file, a status bar) or does not say.
    public static func columns(of descriptor: Int32 = STDOUT_FILENO) -> Int? {
        let columns = clinux_terminal_columns(descriptor)
        return columns > 0 ? Int(columns) : nil
    }
}
