/// The exit statuses documented in usedspace(1).
enum ExitStatus {
    static let success: Int32 = 0
    /// The path could not be measured (missing, unreadable, failed sample).
    static let failure: Int32 = 1
    /// The command line was wrong.
    static let usage: Int32 = 2
}
