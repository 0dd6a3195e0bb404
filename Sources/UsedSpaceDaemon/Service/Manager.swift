import Glibc
import Logging
import UsedSpaceCore
import UsedSpaceSystem

/// Owns the event loop's sources and everything the daemon knows: the watches and their
/// snapshots, the socket and its clients, the state file, the service manager's view.
/// Everything here runs on the loop's thread; only statvfs and state writes leave it.
final class Manager: ClientConnectionDelegate {
    static let version = "0.1.0"

    private let loop: EventLoop
    private let logger: Logger
    private let notifier = ServiceNotifier()
    private let options: DaemonOptions
    private let paths: DaemonPaths
    private var settings: DaemonSettings
    private var notifyPolicy: LowSpacePolicy
    private var desktop: DesktopNotifier?
    /// Low-space notification state by watched path, kept in the state directory.
    private var alerts: [String: LowSpaceAlert] = [:]
    private var alertsFile: BackgroundFileWriter?
    private var historyFile: BackgroundFileWriter?
    private var histories: [String: UsageHistory] = [:]
    /// Every 15 minutes: a point in each history even when nothing changed (the estimate
    /// reads the history as a step function), a fresh estimate, and the history saved.
    private var heartbeat: TimerEventSource?
    static let heartbeatMicroseconds: UInt64 = 15 * 60 * 1_000_000
    private let estimator = TimeToFullEstimator()
    private var watches: [Watch] = []
    private var restored: [Snapshot] = []
    private let sampleWake: EventCounter
    private var sampleWakeSource: IOEventSource?
    private var idleTimer: TimerEventSource?
    private var signalSources: [SignalEventSource] = []
    private var stateStore: StateStore?
    /// The node_exporter textfile, when configured.
    private var textfile: BackgroundFileWriter?
    private var server: SocketServer?
    private var connections: [ObjectIdentifier: ClientConnection] = [:]
    /// Requests that arrived before their path's first snapshot, and any that came after them
    /// on the same connection (answers keep the order of requests).
    private var waiting: [(connection: ClientConnection, request: Result<Request, RequestError>)] = []
    private var isReady = false
    private var isStopping = false

    init(loop: EventLoop, logger: Logger, options: DaemonOptions, paths: DaemonPaths, configuration: Configuration) throws {
        self.loop = loop
        self.logger = logger
        self.options = options
        self.paths = paths
        self.settings = configuration.daemon
        self.notifyPolicy = configuration.notify
        sampleWake = try EventCounter()
    }

    // MARK: - Start and stop

    func start() throws {
        let store = try StateStore(directory: paths.stateDirectory, loop: loop, logger: logger)
        stateStore = store
        restored = store.load()
        try openTextfile()
        try openAlerts()
        try openHistory()
        sampleWakeSource = try IOEventSource(loop: loop, descriptor: sampleWake.descriptor, events: IOEvents.readable) { [unowned self] _ in
            self.collectSamples()
        }
        watches = try settings.paths.map(makeWatch)
        server = try openSocket()
        for signal in [SIGTERM, SIGINT] {
            signalSources.append(try SignalEventSource(loop: loop, signal: signal) { [unowned self] in self.stop() })
        }
        signalSources.append(try SignalEventSource(loop: loop, signal: SIGHUP) { [unowned self] in self.reload() })
        idleTimer = try TimerEventSource(loop: loop, accuracyMicroseconds: 1_000_000) { [unowned self] in
            self.closeIdleConnections()
        }
        let watchdog = try loop.enableWatchdog()
        for watch in watches { try startSampling(watch) }
        logger.info("started", metadata: [
            "paths": "\(watches.map(\.path).joined(separator: ", "))",
            "interval": "\(DurationParser.describe(microseconds: settings.intervalMicroseconds))",
            "socket": "\(server?.boundPath ?? "passed by systemd")",
            "state_dir": "\(paths.stateDirectory)",
            "watchdog": "\(watchdog)",
        ])
    }

    private func makeWatch(_ configuredPath: String) throws -> Watch {
        guard let path = DaemonSettings.expand(configuredPath, home: ProcessEnvironment.homeDirectory) else {
            throw DaemonFailure("cannot expand '\(configuredPath)': HOME is not set")
        }
        let canonical = try? PathResolver.canonical(path)
        let watch = Watch(
            configuredPath: configuredPath, path: path, policy: PublishPolicy(threshold: settings.threshold),
            restoring: restored.first { $0.path == path || $0.path == canonical },
            intervalMicroseconds: settings.intervalMicroseconds, wake: sampleWake)
        if let history = histories[canonical ?? path] ?? histories[path] {
            watch.history = history
            watch.historyFileSystem = watch.snapshot.map(Self.fileSystemIdentity)
        }
        watch.checkTimer = try TimerEventSource(loop: loop, accuracyMicroseconds: 100_000) { [unowned self, unowned watch] in
            self.checkSampler(of: watch)
        }
        return watch
    }

    private func startSampling(_ watch: Watch) throws {
        try watch.sampler.start()
        watch.checkTimer?.schedule(afterMicroseconds: settings.sampleTimeoutMicroseconds)
    }

    /// How long an existing socket's owner has to answer `ping` before it is taken for dead.
    /// Long enough for systemd to start a socket-activated instance that is not running yet.
    static let existingSocketWaitMilliseconds: Int32 = 3000

    private func openSocket() throws -> SocketServer {
        if let passed = try ListenedSockets.take() {
            return try makeServer(listener: passed, boundPath: nil)
        }
        let path = paths.socket
        if let status = try? FileStatus.of(path) {
            guard status.isSocket else {
                throw DaemonFailure("\(path) exists and is not a socket; remove it or pass --socket PATH")
            }
            switch ExistingSocket.probe(path, milliseconds: Self.existingSocketWaitMilliseconds) {
            case .usedspaced:
                throw DaemonFailure("another usedspaced is already answering on \(path); stop it first (systemctl --user stop usedspace)")
            case .otherProgram:
                throw DaemonFailure("another program is answering on \(path); stop it or pass --socket PATH")
            case .silent:
                unlinkFile(path)
                logger.warning("replaced a socket whose owner accepts connections but does not answer (stopped, or stuck in a filesystem that hangs)",
                               metadata: ["socket": "\(path)"])
            case .stale:
                unlinkFile(path)
                logger.info("removed a stale socket left by an earlier run", metadata: ["socket": "\(path)"])
            }
        }
        do {
            return try makeServer(listener: UnixSocket.listen(at: path, mode: 0o600), boundPath: path)
        } catch {
            throw DaemonFailure("cannot listen on \(path): \(error)")
        }
    }

    private func makeServer(listener: Int32, boundPath: String?) throws -> SocketServer {
        try SocketServer(
            listener: listener, boundPath: boundPath, maximumClients: settings.maximumClients, loop: loop, logger: logger,
            connectionCount: { [unowned self] in self.connections.count },
            accepted: { [unowned self] descriptor, pid in self.accept(descriptor, peerProcessID: pid) })
    }

    private func stop() {
        guard !isStopping else { return }
        isStopping = true
        notifier.stopping()
        logger.info("stopping")
        // The last publish queued a save; give it a moment to land before the process ends.
        let deadline = WallClock.monotonicNanoseconds() + 2_000_000_000
        saveHistory()
        while (stateStore?.isSaving == true || textfile?.isWriting == true || alertsFile?.isWriting == true
               || historyFile?.isWriting == true)
            && WallClock.monotonicNanoseconds() < deadline {
            usleep(10_000)
        }
        for connection in Array(connections.values) { connection.close() }
        loop.exit(0)
    }

    // MARK: - Sampling

    /// The sampling threads wake the loop only with news; this timer, at most once per
    /// interval plus timeout, is how the loop notices a thread stuck in statvfs.
    private func checkSampler(of watch: Watch) {
        let now = WallClock.monotonicNanoseconds() / 1000
        let timeout = settings.sampleTimeoutMicroseconds
        let activity = watch.sampler.activity
        if let running = activity.runningSince.map({ $0 / 1000 }) {
            if now >= running + timeout {
                guard !watch.timedOut else { return }
                watch.timedOut = true
                // The late result, when it comes, is shown even if it is what we had.
                watch.sampler.forceNextPost()
                apply(watch.timeoutSample(seconds: Double(timeout) / 1_000_000, at: WallClock.now()), to: watch)
            } else {
                watch.checkTimer?.schedule(atMicroseconds: running + timeout)
            }
        } else if activity.lastCompletion == 0 {
            watch.checkTimer?.schedule(afterMicroseconds: timeout) // the thread has not started yet
        } else {
            watch.checkTimer?.schedule(atMicroseconds: max(activity.lastCompletion / 1000 + settings.intervalMicroseconds + timeout, now + 1000))
        }
    }

    private func collectSamples() {
        sampleWake.drain()
        for watch in watches {
            let samples = watch.sampler.takeSamples()
            guard !samples.isEmpty else { continue }
            watch.timedOut = false
            for sample in samples { apply(sample, to: watch) }
            watch.checkTimer?.schedule(afterMicroseconds: settings.intervalMicroseconds + settings.sampleTimeoutMicroseconds)
        }
    }

    private func apply(_ sample: Sample, to watch: Watch) {
        let decision = watch.publisher.accept(sample)
        let first = !watch.hasSampled
        watch.hasSampled = true
        if options.verbose {
            logger.debug("sample changed", metadata: ["path": "\(watch.path)", "decision": "\(decision)"])
        }
        if decision != .noData { publish(watch) }
        if first { answerWaitingRequests() }
        if !isReady && watches.allSatisfy(\.hasSampled) { becomeReady() }
    }

    private func publish(_ watch: Watch, recordingPoint: Bool = true) {
        if recordingPoint && watch.snapshot?.state == .fresh { estimateTimeToFull(watch, recordingPoint: true) }
        guard let snapshot = watch.snapshot else { return }
        watch.renderings = [:]
        var metadata: Logger.Metadata = [
            "path": "\(snapshot.path)", "mountpoint": "\(snapshot.mountPoint ?? "")",
            "seq": "\(snapshot.seq)", "state": "\(snapshot.state.rawValue)",
        ]
        if let stats = snapshot.stats {
            metadata["rate"] = "\(stats.usedRate ?? 0)"
            metadata["used_percent"] = "\(stats.usedPercent ?? 0)"
            metadata["used_bytes"] = "\(stats.usedBytes)"
            metadata["free_bytes"] = "\(stats.freeBytes)"
        }
        if let error = snapshot.error { metadata["reason"] = "\(error)" }
        switch snapshot.state {
        case .fresh: logger.info("published a snapshot", metadata: metadata)
        case .stale: logger.warning("the filesystem does not answer; serving the last snapshot as stale", metadata: metadata)
        case .failed: logger.warning("sampling failed", metadata: metadata)
        }
        stateStore?.save(watches.compactMap(\.snapshot))
        writeTextfile()
        checkLowSpace(snapshot)
        if isReady { notifier.status(statusText) }
        for connection in connections.values {
            guard let subscription = connection.subscription, subscription.watch == nil || subscription.watch === watch else { continue }
            connection.send(ResponseFrame.update(watch.lines(for: subscription.view)))
        }
    }

    private var statusText: String { StatusText.describe(watches.map(\.snapshot)) }

    // MARK: - Time to full

    static func fileSystemIdentity(_ snapshot: Snapshot) -> String {
        "\(snapshot.mountPoint ?? "") \(snapshot.fileSystemType ?? "") \(snapshot.stats?.totalBytes ?? 0)"
    }

    private func openHistory() throws {
        let path = paths.stateDirectory + "/history"
        historyFile = try BackgroundFileWriter(path: path, what: "the history file", loop: loop, logger: logger)
        if let text = try? FileContents.readText(path, limit: HistoryFile.maximumSize) {
            let (loaded, problems) = HistoryFile.decode(text)
            histories = loaded
            for problem in problems {
                logger.warning("skipping part of the history file", metadata: ["file": "\(path)", "reason": "\(problem)"])
            }
        }
        heartbeat = try TimerEventSource(loop: loop, accuracyMicroseconds: 60_000_000) { [unowned self] in
            self.beat()
        }
        heartbeat?.schedule(afterMicroseconds: Self.heartbeatMicroseconds)
    }

    /// Adds the current free space to the watch's history (a new filesystem at the path
    /// starts a new one) and updates the snapshot's estimate. Returns whether the estimate,
    /// as people read it, changed.
    @discardableResult
    private func estimateTimeToFull(_ watch: Watch, recordingPoint: Bool, at time: Timestamp? = nil) -> Bool {
        guard let snapshot = watch.snapshot, snapshot.state == .fresh, let stats = snapshot.stats else { return false }
        let identity = Self.fileSystemIdentity(snapshot)
        if let known = watch.historyFileSystem, known != identity {
            // Another filesystem at the path (a disk swapped): its past says nothing.
            watch.history = UsageHistory()
        }
        watch.historyFileSystem = identity
        let now = (time ?? snapshot.sampledAt).secondsSinceEpoch
        if recordingPoint { watch.history.append(secondsSinceEpoch: now, availableBytes: stats.freeBytes) }
        let (total, overflow) = stats.usedBytes.addingReportingOverflow(stats.freeBytes)
        let estimate = estimator.estimate(watch.history, now: now, totalBytes: overflow ? .max : total)
        let changed = estimate?.description != snapshot.timeToFull?.description
        watch.publisher.setTimeToFull(estimate, republish: false)
        histories[snapshot.path] = watch.history
        return changed
    }

    private func beat() {
        let now = WallClock.now()
        for watch in watches {
            guard watch.snapshot?.state == .fresh else { continue }
            if estimateTimeToFull(watch, recordingPoint: true, at: now) {
                // Same numbers, another outlook: worth a new snapshot.
                watch.publisher.setTimeToFull(watch.snapshot?.timeToFull, republish: true)
                publish(watch, recordingPoint: false)
            }
        }
        saveHistory()
        heartbeat?.schedule(afterMicroseconds: Self.heartbeatMicroseconds)
    }

    private func saveHistory() {
        historyFile?.write(HistoryFile.encode(histories.filter { entry in watches.contains { $0.snapshot?.path == entry.key } }))
    }

    // MARK: - Low-space notifications

    private func openAlerts() throws {
        let path = paths.stateDirectory + "/alerts.json"
        alertsFile = try BackgroundFileWriter(path: path, what: "the alerts file", loop: loop, logger: logger)
        if let text = try? FileContents.readText(path, limit: 1 << 20) {
            do {
                alerts = try LowSpaceAlertCodec.decode(text)
            } catch {
                logger.warning("ignoring the alerts file; it will be replaced", metadata: ["file": "\(path)", "reason": "\(error)"])
            }
        }
        let desktop = DesktopNotifier(loop: loop, logger: logger)
        desktop.onIgnore = { [unowned self] path in
            self.alerts[path] = self.notifyPolicy.snoozed(self.alerts[path] ?? LowSpaceAlert(), now: WallClock.now().secondsSinceEpoch)
            self.saveAlerts()
        }
        self.desktop = desktop
    }

    private func checkLowSpace(_ snapshot: Snapshot) {
        let before = alerts[snapshot.path] ?? LowSpaceAlert()
        let (action, after) = notifyPolicy.evaluate(snapshot, alert: before, now: WallClock.now().secondsSinceEpoch)
        switch action {
        case .none:
            break
        case .notify(let summary, let body):
            logger.notice("low disk space", metadata: ["path": "\(snapshot.path)", "summary": "\(summary)"])
            desktop?.show(path: snapshot.path, summary: summary, body: body)
        case .withdraw:
            logger.notice("disk space recovered", metadata: ["path": "\(snapshot.path)"])
            desktop?.withdraw(path: snapshot.path)
        }
        if after != before {
            alerts[snapshot.path] = after
            saveAlerts()
        }
    }

    private func saveAlerts() {
        alertsFile?.write(LowSpaceAlertCodec.encode(alerts))
    }

    private func openTextfile() throws {
        guard let directory = settings.textfileDirectory else {
            textfile = nil
            return
        }
        guard textfile?.path != directory + "/usedspace.prom" else { return }
        // Readable by all: the node exporter runs as another user.
        textfile = try BackgroundFileWriter(path: directory + "/usedspace.prom", what: "the Prometheus textfile", mode: 0o644,
                                            loop: loop, logger: logger)
    }

    private func writeTextfile() {
        guard let textfile else { return }
        textfile.write(PrometheusTextRenderer.render(watches.compactMap(\.snapshot)))
    }

    private func becomeReady() {
        isReady = true
        notifier.ready(status: statusText)
        logger.notice("ready", metadata: ["status": "\(statusText)"])
    }

    // MARK: - Reload

    private func reload() {
        notifier.reloading()
        do {
            let new = try ConfigurationLoader(paths: paths, options: options).load()
            try apply(new.daemon)
            notifyPolicy = new.notify
            logger.notice("configuration reloaded", metadata: ["config": "\(paths.configFile)"])
        } catch {
            logger.error("configuration not reloaded; keeping the previous one", metadata: ["reason": "\(error)"])
        }
        notifier.ready(status: statusText)
    }

    private func apply(_ new: DaemonSettings) throws {
        var kept: [Watch] = []
        var added: [Watch] = []
        for configured in new.paths {
            if let existing = watches.first(where: { $0.configuredPath == configured }) {
                kept.append(existing)
            } else {
                let watch = try makeWatch(configured)
                kept.append(watch)
                added.append(watch)
            }
        }
        for removed in watches where !kept.contains(where: { $0 === removed }) {
            for connection in connections.values where connection.subscription?.watch === removed {
                connection.send(ResponseFrame.error(RequestError(code: "not-watched", message: "\(removed.path) is no longer watched")))
                connection.finish()
            }
        }
        settings = new
        watches = kept
        for watch in watches {
            watch.publisher.policy = PublishPolicy(threshold: new.threshold)
            watch.sampler.setInterval(microseconds: new.intervalMicroseconds)
        }
        server?.maximumClients = new.maximumClients
        try openTextfile()
        for watch in added { try startSampling(watch) }
        writeTextfile()
    }

    // MARK: - Clients

    private func accept(_ descriptor: Int32, peerProcessID: Int32) {
        do {
            let connection = try ClientConnection(descriptor: descriptor, peerProcessID: peerProcessID, loop: loop, now: loop.now, delegate: self)
            connections[ObjectIdentifier(connection)] = connection
            if idleTimer?.isScheduled == false { idleTimer?.schedule(afterMicroseconds: settings.idleTimeoutMicroseconds / 2) }
        } catch {
            // The connection owned the descriptor from its first line, and its deinit (which
            // runs for an initializer that throws once every property is set) closed it.
            logger.error("cannot watch a new connection", metadata: ["reason": "\(error)"])
        }
    }

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
        switch result {
        case .failure(let error):
            connection.send(ResponseFrame.error(error))
        case .success(let request):
            handle(request, from: connection)
        }
    }

    private func handle(_ request: Request, from connection: ClientConnection) {
        switch request {
        case .hello:
            connection.send(ResponseFrame.ok(["usedspace-protocol \(ProtocolVersion.current) usedspaced \(Self.version)"]))
        case .ping:
            connection.send(ResponseFrame.ok(["pong"]))
        case .help:
            connection.send(ResponseFrame.ok(Self.helpLines))
        case .quit:
            connection.send(ResponseFrame.ok([]))
            connection.finish()
        // (A `where` clause would apply to the last pattern only: hence the two cases.)
        case .status(let view) where view.all, .subscribe(let view) where view.all:
            guard watches.allSatisfy({ $0.snapshot != nil }) else {
                waiting.append((connection, .success(request)))
                return
            }
            if case .subscribe = request {
                connection.subscription = (nil, view)
            } else if connection.subscription?.watch == nil {
                connection.subscription = nil
            }
            connection.send(ResponseFrame.ok(watches.flatMap { $0.lines(for: view) }))
        case .status(let view), .subscribe(let view):
            guard let watch = watch(for: view.path) else {
                let watched = watches.map(\.path).joined(separator: ", ")
                connection.send(ResponseFrame.error(RequestError(
                    code: "not-watched", message: "\(view.path ?? "") is not watched by this daemon (watched: \(watched))")))
                return
            }
            guard watch.snapshot != nil else {
                // Only before the very first sample of a path: nothing cached yet. The
                // sample timeout bounds the wait.
                waiting.append((connection, .success(request)))
                return
            }
            if case .subscribe = request {
                connection.subscription = (watch, view)
            } else if connection.subscription?.watch === watch {
                connection.subscription = nil
            }
            connection.send(ResponseFrame.ok(watch.lines(for: view)))
        }
    }

    private func watch(for path: String?) -> Watch? {
        guard let path else { return watches.first }
        return watches.first { $0.matches(path) }
    }

    private func answerWaitingRequests() {
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
        var anyLeft = false
        for connection in Array(connections.values) where connection.subscription == nil {
            if now - connection.lastRequestAt > settings.idleTimeoutMicroseconds && !waiting.contains(where: { $0.connection === connection }) {
                connection.send(ResponseFrame.error(RequestError(code: "idle", message: "no request for \(DurationParser.describe(microseconds: settings.idleTimeoutMicroseconds)); closing")))
                connection.finish()
            } else {
                anyLeft = true
            }
        }
        if anyLeft { idleTimer?.schedule(afterMicroseconds: settings.idleTimeoutMicroseconds / 2) }
    }

    static let helpLines = [
        "usedspace protocol \(ProtocolVersion.current): one request per line; answers start with 'ok N' (N lines follow) or 'error CODE MESSAGE'",
        "hello                      protocol and daemon version",
        "ping                       answers pong",
        "status [FORMAT] [details] [path=PATH | all]",
        "                           the current snapshot; FORMAT: format=text (default), json, i3bar, i3blocks, polybar, waybar, snapshot",
        "subscribe [FORMAT] [details] [path=PATH | all]",
        "                           the current snapshot, then 'update N' and N lines at every publish",
        "                           (all: every watched path, and updates of whichever publishes)",
        "quit                       closes the connection",
        "PATH is absolute and percent-encoded (%20 for a space); without it, the first watched path",
    ]
}

struct DaemonFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
