import Foundation

/// What a test does with a running daemon, whichever way it was started: as users run it
/// (UserServiceDaemon, the default) or directly (DaemonProcess).
protocol TestedDaemon: AnyObject {
    var socketPath: String { get }
    var stateDirectory: String { get }
    /// What `~` is for the daemon and its clients.
    var home: String { get }
    /// Its main process, while it runs.
    var pid: pid_t? { get }
    var isRunning: Bool { get }
    /// What it logged so far, as lines of text (`log.value`).
    associatedtype Log: LogText
    var log: Log { get }
    var residentKilobytes: Int? { get }

    /// A protocol connection that the daemon serves (as its user).
    func client() throws -> ProtocolClient
    /// The client program against this daemon, as its user would run it.
    func usedspace(_ arguments: [String], environment extra: [String: String], stdin: Data?, timeout: TimeInterval) throws -> CommandResult
    /// `usedspace watch` against this daemon, as its user would run it.
    func watch(_ arguments: [String], environment extra: [String: String]) throws -> WatchProcess
    func waitUntilAnswering(seconds: Double) throws
    func signal(_ number: Int32)
    /// Stops it; its exit status, or nil when it did not stop cleanly.
    @discardableResult func stop() -> Int32?
}

/// The log's text so far.
protocol LogText {
    var value: String { get }
}

extension Locked: LogText where Value == String {}
extension JournalLog: LogText {}

extension TestedDaemon {
    func usedspace(_ arguments: [String], environment extra: [String: String] = [:]) throws -> CommandResult {
        try usedspace(arguments, environment: extra, stdin: nil, timeout: 30)
    }

    func watch(_ arguments: [String]) throws -> WatchProcess { try watch(arguments, environment: [:]) }

    func waitUntilAnswering() throws { try waitUntilAnswering(seconds: 20) }

    /// `body` run while the daemon is stopped (SIGSTOP), so that what it does is seen as one change.
    func whileStopped<Result>(_ body: () throws -> Result) throws -> Result {
        guard let pid else { throw HarnessFailure("the daemon is not running") }
        return try IntegrationTests.whileStopped(pid, body)
    }
}
