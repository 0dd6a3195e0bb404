import UsedSpaceCore
import UsedSpaceSystem

/// What the clients need of the rest of the daemon (the manager).
protocol ClientsContext: AnyObject {
    var watches: [WatchedPath] { get }
    /// Why the configuration file is not what runs, shown with every snapshot.
    var configurationProblem: String? { get }
    var idleTimeoutMicroseconds: UInt64 { get }
    /// A `reload` request: applies the configuration file, or says why it was refused.
    func reloadForClient() -> Result<String, ConfigurationRefusal>
}

/// The daemon's clients on its socket: their connections, the requests that wait for a
/// path's first snapshot (and those after them on the same connection: answers keep the
/// order of requests), each publish sent to the subscribers (each view rendered once,
/// however many share it), a watch's end, and the sweep of idle connections.
final class Clients: ClientConnectionDelegate {
    private let loop: EventLoop
    private let logger: Logger
    private unowned(unsafe) let context: ClientsContext
    private var connections: [ObjectIdentifier: ClientConnection] = [:]
    private var waiting: [(connection: ClientConnection, request: Result<Request, RequestError>)] = []
    private var idleTimer: TimerEventSource?

    init(loop: EventLoop, logger: Logger, context: ClientsContext) throws(SystemError) {
        self.loop = loop
        self.logger = logger
        self.context = context
        idleTimer = try TimerEventSource(loop: loop, accuracyMicroseconds: 1_000_000) { [unowned(unsafe) self] in self.closeIdleConnections() }
    }

    deinit { idleTimer = nil }

    var count: Int { connections.count }

    func accept(_ socket: consuming FileDescriptor, peerProcessID: Int32) {
        do {
            let connection = try ClientConnection(socket: socket, peerProcessID: peerProcessID, loop: loop, now: loop.now, delegate: self)
            connections[ObjectIdentifier(connection)] = connection
            if idleTimer?.isScheduled == false { idleTimer?.schedule(afterMicroseconds: context.idleTimeoutMicroseconds / 2) }
        } catch {
            logger.error("cannot watch a new connection: \(error)", metadata: ["reason": "\(error)"])
        }
    }

    /// At stop.
    func closeAll() {
        for connection in Array(connections.values) { connection.close() }
    }

    // MARK: - Publishes and ends

    /// The watch's new snapshot, to each of its subscribers and those of every path.
    func publish(_ watch: WatchedPath) {
        // A few views at most: a list, not a Dictionary, whose code would be more of the
        // binary to page in.
        var frames: [(view: ViewRequest, bytes: [UInt8])] = []
        for connection in connections.values {
            guard let subscription = connection.subscription, subscription.watch == nil || subscription.watch === watch else { continue }
            let view = subscription.view
            if let frame = frames.first(where: { $0.view.format == view.format && $0.view.details == view.details }) {
                connection.send(bytes: frame.bytes)
            } else {
                let bytes = Array(ResponseFrame.update(watch.lines(for: view, configurationProblem: context.configurationProblem)).utf8)
                frames.append((view, bytes))
                connection.send(bytes: bytes)
            }
        }
    }

    /// A watch's end: the subscribers of every path get its last snapshot (shown already),
    /// those of its path alone an error, and their connection ends.
    func ended(_ watch: WatchedPath, reason: String, lastShown: Bool) {
        if lastShown {
            for connection in connections.values {
                guard let subscription = connection.subscription, subscription.watch == nil else { continue }
                connection.send(ResponseFrame.update(watch.lines(for: subscription.view, configurationProblem: context.configurationProblem)))
            }
        }
        for connection in connections.values where connection.subscription?.watch === watch {
            connection.send(ResponseFrame.error(RequestError(code: "not-watched", message: reason)))
            connection.finish()
        }
    }

    // MARK: - Requests (ClientConnectionDelegate)

    func connectionDidClose(_ connection: ClientConnection) {
        connections[ObjectIdentifier(connection)] = nil
        waiting.removeAll { $0.connection === connection }
    }

    func connection(_ connection: ClientConnection, didReceive result: Result<Request, RequestError>) {
        connection.lastRequestAt = loop.now
        if isWaiting(connection) {
            waiting.append((connection, result))
        } else {
            process(result, from: connection)
        }
    }

    func connectionDidEndInput(_ connection: ClientConnection) {
        if !isWaiting(connection) && connection.subscription == nil { connection.finish() }
    }

    private func isWaiting(_ connection: ClientConnection) -> Bool {
        waiting.contains { $0.connection === connection }
    }

    private func process(_ result: Result<Request, RequestError>, from connection: ClientConnection) {
        let request: Request
        switch result {
        case .failure(let error):
            connection.send(ResponseFrame.error(error))
            return
        case .success(let parsed):
            request = parsed
        }
        switch RequestDispatcher.reply(to: request, watches: context.watches, configurationProblem: context.configurationProblem) {
        case .answer(let frame):
            connection.send(frame)
        case .answerAndClose(let frame):
            connection.send(frame)
            connection.finish()
        case .subscribe(let watch, let view, let frame):
            connection.subscription = (watch, view)
            connection.send(frame)
        case .waitForSnapshot:
            waiting.append((connection, result))
        case .reload:
            switch context.reloadForClient() {
            case .success(let summary): connection.send(ResponseFrame.ok([summary]))
            case .failure(let refusal): connection.send(ResponseFrame.error(RequestError(code: "config", message: refusal.description)))
            }
        }
    }

    /// Answers the requests that waited, now that a path may have its first snapshot (or
    /// its watch has ended).
    func answerWaitingRequests() {
        let pending = waiting
        waiting = []
        for (connection, request) in pending where !connection.isClosed {
            if isWaiting(connection) {
                waiting.append((connection, request))
            } else {
                process(request, from: connection)
            }
        }
        for (connection, _) in pending where !connection.isClosed && connection.inputEnded {
            connectionDidEndInput(connection)
        }
    }

    private func closeIdleConnections() {
        let now = loop.now
        let timeout = context.idleTimeoutMicroseconds
        var anyLeft = false
        for connection in Array(connections.values) where connection.subscription == nil {
            if now - connection.lastRequestAt > timeout && !isWaiting(connection) {
                connection.send(ResponseFrame.error(RequestError(
                    code: "idle", message: "no request for \(DurationParser.describe(microseconds: timeout)); closing")))
                connection.finish()
            } else {
                anyLeft = true
            }
        }
        if anyLeft { idleTimer?.schedule(afterMicroseconds: timeout / 2) }
    }
}
