import Glibc

/// The width of the terminal a stream writes to, so that a line is never wrapped.
public enum TerminalWidth {
    /// Columns of the terminal on `descriptor`; nil when it is not a terminal (a pipe, a
    /// file, a status bar) or does not say.
    public static func columns(of descriptor: Int32 = STDOUT_FILENO) -> Int? {
        guard isatty(descriptor) == 1 else { return nil }
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
