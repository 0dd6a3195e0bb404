import UsedSpaceCore

/// A watched path as the protocol serves it (WatchedPath; a stand-in in unit tests).
protocol ServedWatch: AnyObject {
    var path: String { get }
    var snapshot: Snapshot? { get }
    func matches(_ requested: String) -> Bool
    func lines(for view: ViewRequest, configurationProblem: String?) -> [String]
}

/// What the daemon answers to one request of the protocol (usedspaced(8)), decided without
/// a socket: the manager carries the reply out on the connection.
enum Reply {
    /// Send this frame.
    case answer(String)
    /// Send this frame, then close the connection.
    case answerAndClose(String)
    /// Send this frame, then an update at every publish of `watch` (nil: of any watch).
    case subscribe(watch: ServedWatch?, view: ViewRequest, answer: String)
    /// Nothing to show yet (before the first sample of a path): ask again once there is.
    case waitForSnapshot
    /// Reload the configuration file, then answer with the outcome.
    case reload
}

enum RequestDispatcher {
    static func reply<Watch: ServedWatch>(to request: Request, watches: [Watch], configurationProblem: String?) -> Reply {
        switch request {
        case .hello:
            return .answer(ResponseFrame.ok(["usedspace-protocol \(ProtocolVersion.current) usedspaced \(UsedSpaceVersion.current)"]))
        case .ping:
            return .answer(ResponseFrame.ok(["pong"]))
        case .help:
            return .answer(ResponseFrame.ok(helpLines))
        case .quit:
            return .answerAndClose(ResponseFrame.ok([]))
        case .reload:
            return .reload
        case .status(let view), .subscribe(let view):
            let selected: [Watch]
            if view.all {
                selected = watches
            } else if let watch = watch(for: view.path, in: watches) {
                selected = [watch]
            } else {
                let watched = watches.map { $0.path }.joined(separator: ", ")
                return .answer(ResponseFrame.error(RequestError(
                    code: "not-watched", message: "\(view.path ?? "") is not watched by this daemon (watched: \(watched))")))
            }
            // Only before the very first sample of a path is there nothing to show; the sample
            // timeout bounds the wait.
            guard selected.allSatisfy({ $0.snapshot != nil }) else { return .waitForSnapshot }
            let answer = ResponseFrame.ok(selected.flatMap { $0.lines(for: view, configurationProblem: configurationProblem) })
            if case .subscribe = request {
                return .subscribe(watch: view.all ? nil : selected.first, view: view, answer: answer)
            }
            return .answer(answer)
        }
    }

    /// The watch a request names: a watched path (as configured, or as it resolves), or the
    /// first watched path when it names none.
    static func watch<Watch: ServedWatch>(for path: String?, in watches: [Watch]) -> Watch? {
        guard let path else { return watches.first }
        return watches.first { $0.matches(path) }
    }

    static let helpLines = [
        "usedspace protocol \(ProtocolVersion.current): one request per line; answers start with 'ok N' (N lines follow) or 'error CODE MESSAGE'",
        "hello                      protocol and daemon version",
        "ping                       answers pong",
        "status [FORMAT] [details] [path=PATH | all]",
        "                           the current snapshot; FORMAT: format=text (default), json, i3bar, i3blocks, polybar, waybar, snapshot",
        "subscribe [FORMAT] [details] [path=PATH | all]",
        "                           the current snapshot, then 'update N' and N lines at every publish",
        "                           (all: every watched path, and updates of whichever publishes; with path = auto,",
        "                           a new filesystem's first update, and an unmounted one's last, marked watch_ended)",
        "reload                     reloads the configuration file; answers what it applied, or why it kept the running one",
        "quit                       closes the connection",
        "PATH is absolute and percent-encoded (%20 for a space); without it, the first watched path",
    ]
}
