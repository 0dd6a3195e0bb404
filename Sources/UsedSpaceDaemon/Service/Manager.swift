import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// Starts, stops and reloads the daemon, follows the mount table, and hands each publish on
/// to what follows it. Everything here runs on the loop's thread; sampling and file writes
/// run on threads of their own, and nothing here touches a watched filesystem.
///
/// The parts live in files of their own: the clients and their subscriptions (Clients), the
/// protocol's answers (RequestDispatcher), each watched path and its snapshot stream
/// (WatchedPath), the time-to-full histories (TimeToFullTracker), the state file
/// (StateSaver), low-space notifications (LowSpaceNotifications), the listening socket
/// (SocketSetup), a reload's new state (ReloadPlan).
final class Manager: ClientsContext, ConfiguredStateFactory {
    private let loop: EventLoop
    private let logger: Logger
    private let notifier = ServiceNotifier()
    private let paths: DaemonPaths
    private let loader: ConfigurationLoader
    /// What the configuration made; replaced whole by a reload.
    private var state: ConfiguredState
    var watches: [WatchedPath] { state.watches }
    private var settings: DaemonSettings { state.settings }

    private var restored = StateFile.Contents(entries: [], problems: [])
    private var stateSaver: StateSaver?
    private var historyFile: BackgroundFileWriter?
    private var tracker = TimeToFullTracker()
    private var heartbeat: TimerEventSource?
    /// WATCHDOG=1 while the loop turns, when WatchdogSec= asks for it.
    private var watchdog: Watchdog?
    private var alerts: LowSpaceNotifications?
    private var spaceAlerts: SpaceAlertNotifications?
    /// Who is filling each filesystem during a fast fill (nil without the helper's socket).
    private var writerNaming: FillWriterNaming?
    private var desktop: DesktopNotifier?
    private var sessionBus: SessionBus?
    /// The daemon on the session bus: an object per watched filesystem.
    private var busObjects: UsedSpaceBusObjects?
    /// With `path = auto`: the mount table, followed.
    private var mountWatcher: MountWatcher?
    /// Which mount points `path = auto` watches, as the table changes (the rule `watch --all`
    /// follows too): those this user cannot reach are left out while they stay mounted,
    /// rather than shown failed for ever.
    private var mountFollowing = MountFollowing()
    /// Samples the watched paths on filesystems that cannot hang in one thread (one wakeup
    /// per interval for a dozen filesystems); each other path has a thread of its own.
    private var samplingGroup: SamplingGroup?
    /// The group's alarm: readable only when one of its passes overran the timeout.
    private var samplingGroupAlarm: IOEventSource?

    private var server: SocketServer?
    private var clients: Clients?
    private var signalSources: [SignalEventSource] = []
    /// The configuration file, when it had not answered at start-up (a dead network home).
    private var pendingConfiguration: IsolatedFileRead?
    /// Files that answer after the start-up deadline, each taken when it arrives.
    private var lateFiles: [LateFileRead] = []
    private var isReady = false
    private var isStopping = false

    /// Loads the configuration file; one that is refused leaves the daemon running with the
    /// defaults (and saying so), never not running. One whose filesystem does not answer at
    /// once is taken when it does, a reload of its own.
    init(loop: EventLoop, logger: Logger, paths: DaemonPaths, loader: ConfigurationLoader) {
        self.loop = loop
        self.logger = logger
        self.paths = paths
        self.loader = loader
        switch loader.begin() {
        case .loaded(.success(let configuration)):
            state = ConfiguredState(configuration: configuration, watches: [], textfile: nil, problem: nil)
        case .loaded(.failure(let error)):
            // Refusing to start would leave nothing watching and, after a few socket
            // activations, the socket unit failed: run with the defaults and say so wherever
            // the user looks (the journal, systemctl status, every client, the bars).
            state = ConfiguredState(configuration: loader.defaults(), watches: [], textfile: nil,
                                    problem: "\(error); running with the default settings", isDefaults: true)
        case .pending(let read):
            pendingConfiguration = read
            state = ConfiguredState(configuration: loader.defaults(), watches: [], textfile: nil, problem: loader.pendingProblem, isDefaults: true)
        }
    }

    // MARK: - Start and stop

    func start() throws(DaemonFailure) {
        let reader = StartupFileReader(logger: logger)
        let directory = paths.stateDirectory
        let stateFileToRead = StartupFileReader.File(path: directory + "/state.json", limit: StateFile.maximumSize, what: "the state file")
        let historyToRead = StartupFileReader.File(path: directory + "/history", limit: HistoryFile.maximumSize, what: "the history file")
        let alertsToRead = StartupFileReader.File(path: directory + "/alerts.json", limit: 1 << 20, what: "the alerts file")
        let outcomes = reader.read([stateFileToRead, historyToRead, alertsToRead])
        func text(_ index: Int) -> String? {
            if case .read(let text) = outcomes[index] { return text }
            return nil
        }
        restored = loadStateFile(text(0))
        do throws(SystemError) {
            stateSaver = try StateSaver(
                file: try BackgroundFileWriter(path: stateFileToRead.path, what: stateFileToRead.what, loop: loop, logger: logger),
                loop: loop, reservedSeq: restored.reservedSeq) { [unowned(unsafe) self] in
                self.watches.compactMap { watch in watch.snapshot.map { StateFile.Entry(watch: watch.path, snapshot: $0) } }
            }
            historyFile = try BackgroundFileWriter(path: historyToRead.path, what: historyToRead.what, loop: loop, logger: logger)
            if let text = text(1) { tracker = decodeHistory(text) }
            let alertsPath = alertsToRead.path
            let alertsFile = try BackgroundFileWriter(path: alertsPath, what: alertsToRead.what, loop: loop, logger: logger)
            let sessionBus = try SessionBus(loop: loop, logger: logger)
            let desktop = DesktopNotifier(sessionBus: sessionBus, logger: logger)
            let alerts = LowSpaceNotifications(
                policy: state.configuration.notify,
                alerts: LowSpaceNotifications.decode(text(2), file: alertsPath, logger: logger),
                presenter: desktop, file: alertsFile, logger: logger)
            let spaceAlerts = SpaceAlertNotifications(policy: state.configuration.notify, presenter: desktop, logger: logger)
            desktop.onIgnore = { [unowned(unsafe) alerts, unowned(unsafe) spaceAlerts] key in
                let now = WallClock.now().secondsSinceEpoch
                if SpaceAlertNotifications.parse(key) != nil { spaceAlerts.ignore(key, now: now) } else { alerts.ignore(key, now: now) }
            }
            if let socket = paths.writersSocket {
                let questions = try FillWriterQuestions(socket: socket, loop: loop, logger: logger)
                let naming = FillWriterNaming(questions: questions)
                // Its questions are asked by mount point.
                questions.answered = { [unowned(unsafe) naming] mountPoint, found in naming.answered(mountPoint: mountPoint, found) }
                naming.notificationAnswered = { [unowned(unsafe) spaceAlerts] key, found in spaceAlerts.writersFound(found, key: key) }
                naming.changed = { [unowned(unsafe) self] mountPoint, found in self.writersNamed(found, on: mountPoint) }
                spaceAlerts.writers = naming
                writerNaming = naming
            }
            self.desktop = desktop
            self.sessionBus = sessionBus
            busObjects = try UsedSpaceBusObjects(sessionBus: sessionBus, logger: logger)
            self.alerts = alerts
            self.spaceAlerts = spaceAlerts
            heartbeat = try TimerEventSource(loop: loop, accuracyMicroseconds: 60_000_000) { [unowned(unsafe) self] in self.beat() }
            heartbeat?.schedule(afterMicroseconds: TimeToFullTracker.heartbeatMicroseconds)

            let group = try SamplingGroup()
            samplingGroup = group
            samplingGroupAlarm = try IOEventSource(loop: loop, descriptor: group.alarm.descriptor, events: IOEvents.readable) {
                [unowned(unsafe) self] _ in
                group.alarm.acknowledge()
                // Which member hangs, the group does not know: each checks its own sample, and
                // the first one overdue hands the others a new thread (SamplingGroup.rescue).
                for watch in self.watches { watch.checkTimeout() }
            }
        } catch {
            throw DaemonFailure(error)
        }
        var initial = try ReloadPlan.prepare(state.configuration, replacing: state, factory: self,
                                             automatic: try automaticPaths(for: state.configuration)).state
        initial.problem = state.problem
        initial.isDefaults = state.isDefaults
        state = initial
        applyBarSettings()
        applySamplingSettings()
        do { clients = try Clients(loop: loop, logger: logger, context: self) } catch { throw DaemonFailure(error) }
        let listening = try SocketSetup.open(at: paths.socket, logger: logger)
        do throws(SystemError) {
            server = try SocketServer(
                listener: listening.socket, boundPath: listening.boundPath, maximumClients: settings.maximumClients, loop: loop, logger: logger,
                connectionCount: { [unowned(unsafe) self] in self.clients?.count ?? 0 },
                // Written out: Swift 6.0 takes an unannotated closure's socket as borrowed
                // ("'socket' is borrowed and cannot be consumed").
                accepted: { [unowned(unsafe) self] (socket: consuming FileDescriptor, pid: Int32) in
                    self.clients?.accept(socket, peerProcessID: pid)
                })
            for signal in [SIGTERM, SIGINT] {
                signalSources.append(try SignalEventSource(loop: loop, signal: signal) { [unowned(unsafe) self] in self.stop() })
            }
            signalSources.append(try SignalEventSource(loop: loop, signal: SIGHUP) { [unowned(unsafe) self] in _ = self.reload() })
            for (index, file) in [stateFileToRead, historyToRead, alertsToRead].enumerated() {
                guard case .late(let read) = outcomes[index] else { continue }
                lateFiles.append(try LateFileRead(read, loop: loop) { [unowned(unsafe) self] result in
                    self.lateFileArrived(index, text: reader.text(of: file, result))
                })
            }
            if let read = pendingConfiguration {
                lateFiles.append(try LateFileRead(read, loop: loop) { [unowned(unsafe) self] result in
                    self.pendingConfiguration = nil
                    _ = self.apply(self.loader.configuration(from: result), arrivedLate: true)
                })
            }
            showWatchesOnTheBus()
            if let sessionBus {
                if let desktop { sessionBus.add(desktop) }
                if let busObjects { sessionBus.add(busObjects) }
                sessionBus.open()
            }
            watchdog = try Watchdog(loop: loop, notifier: notifier)
        } catch {
            throw DaemonFailure(error)
        }
        logger.info("started: watching \(watches.map { $0.path }.joined(separator: ", ")) every \(DurationParser.describe(microseconds: settings.intervalMicroseconds))", metadata: [
            "paths": "\(watches.map { $0.path }.joined(separator: ", "))",
            "interval": "\(DurationParser.describe(microseconds: settings.intervalMicroseconds))",
            "socket": "\(server?.boundPath ?? "passed by systemd")",
            "state_dir": "\(paths.stateDirectory)",
            "watchdog": "\(watchdog != nil)",
        ])
        if let problem = state.problem {
            logger.error("configuration refused: \(problem) (check it with: usedspace config check; then: systemctl --user reload usedspace)",
                         metadata: ["config": "\(paths.configFile)", "reason": "\(problem)"])
        }
    }

    private func decodeHistory(_ text: String) -> TimeToFullTracker {
        let (loaded, problems) = TimeToFullTracker.decode(text)
        for problem in problems {
            logger.warning("skipping part of the history file: \(problem)", metadata: ["file": "\(paths.stateDirectory)/history", "reason": "\(problem)"])
        }
        return loaded
    }

    /// A file of the state directory that answered after start-up: what it holds is added
    /// to what the daemon has since made, never put in its place (newer).
    private func lateFileArrived(_ index: Int, text: String?) {
        guard let text else { return }
        logger.notice("read \(["the state file", "the history file", "the alerts file"][index]) at last; what it holds is taken over")
        switch index {
        case 0:
            restored = loadStateFile(text)
            for watch in watches {
                if let snapshot = StateFile.snapshot(for: watch.path, in: restored) { watch.adopt(snapshot) }
            }
        case 1:
            tracker.adopt(decodeHistory(text))
        default:
            alerts?.adopt(LowSpaceNotifications.decode(text, file: paths.stateDirectory + "/alerts.json", logger: logger))
        }
    }

    private func loadStateFile(_ text: String?) -> StateFile.Contents {
        let none = StateFile.Contents(entries: [], problems: [])
        guard let text else { return none }
        let file = paths.stateDirectory + "/state.json"
        do {
            let contents = try StateFile.decode(text)
            for problem in contents.problems {
                logger.warning("skipping a snapshot in the state file: \(problem)", metadata: ["state_file": "\(file)", "reason": "\(problem)"])
            }
            return contents
        } catch {
            logger.warning("ignoring the state file, it will be replaced: \(error)", metadata: ["state_file": "\(file)", "reason": "\(error)"])
            return none
        }
    }

    private func stop() {
        guard !isStopping else { return }
        isStopping = true
        notifier.stopping()
        logger.info("stopping")
        saveHistory()
        // The last publish queued its saves; give them a moment to land before the process ends.
        let deadline = MonotonicClock.nanoseconds() + 2_000_000_000
        stateSaver?.flush()
        let writers = [stateSaver?.file, historyFile, state.textfile].compactMap { $0 }
        while writers.contains(where: { $0.isWriting }) && MonotonicClock.nanoseconds() < deadline {
            usleep(10_000)
        }
        clients?.closeAll()
        sessionBus?.close()
        loop.exit(0)
    }

    // MARK: - Watches (ConfiguredStateFactory)

    func makeWatch(configuredPath: String, settings: DaemonSettings) throws(DaemonFailure) -> WatchedPath {
        guard let path = DaemonSettings.expand(configuredPath, home: ProcessEnvironment.homeDirectory) else {
            throw DaemonFailure("cannot expand '\(configuredPath)': HOME is not set")
        }
        let restoredSnapshot = StateFile.snapshot(for: path, in: restored)
        if let restoredSnapshot { tracker.restore(restoredSnapshot) }
        let publisher = Publisher(policy: PublishPolicy(threshold: settings.threshold), source: .daemon, restoring: restoredSnapshot)
        do {
            return try WatchedPath(configuredPath: configuredPath, path: path, publisher: publisher, settings: settings, loop: loop,
                                   group: samplingGroup, estimate: { [unowned(unsafe) self] snapshot in self.tracker.record(snapshot) }) {
                [unowned(unsafe) self] watch, snapshot in self.published(snapshot, by: watch)
            }
        } catch {
            throw DaemonFailure(error)
        }
    }

    func makeTextfile(directory: String) throws(DaemonFailure) -> BackgroundFileWriter {
        do {
            // Readable by all: the node exporter runs as another user.
            return try BackgroundFileWriter(path: PrometheusTextfile.path(in: directory), what: "the Prometheus textfile", mode: 0o644,
                                            loop: loop, logger: logger)
        } catch {
            throw DaemonFailure(error)
        }
    }

    func start(_ watch: WatchedPath) throws(DaemonFailure) {
        do { try watch.start() } catch { throw DaemonFailure(error) }
    }

    // MARK: - Publishing

    /// A watch's thread published `snapshot` (nil: its first sample published nothing new).
    private func published(_ snapshot: Snapshot?, by watch: WatchedPath) {
        if let snapshot, mountFollowing.isUnreachable(snapshot, of: watch.configuredPath, followed: state.automaticPaths) {
            // Not shown: the watch ends at the next read of the mount table, asked for now
            // (not here: this runs in the watch's own event source).
            logger.info("not watching \(ControlCharacters.replaced(in: watch.path)): permission denied, this user cannot reach it",
                        metadata: ["path": "\(watch.path)"])
            mountWatcher?.readSoon()
        } else if let shown = snapshot {
            let previous = watch.snapshot
            watch.show(shown)
            announce(shown, of: watch, after: previous)
        }
        if !isReady && watches.allSatisfy({ $0.hasSampled }) { becomeReady() }
        clients?.answerWaitingRequests()
    }

    /// Tells everyone who follows the watch about its new snapshot: the journal, the state
    /// file, the textfile, the low-space check, systemd's status line, the subscribers.
    private func announce(_ snapshot: Snapshot, of watch: WatchedPath, after previous: Snapshot?) {
        logPublish(snapshot, after: previous)
        stateSaver?.changed(seq: snapshot.seq)
        writeTextfile()
        alerts?.check(snapshot, policy: state.configuration.notifyPolicy(watchedPath: watch.path, snapshot: snapshot, home: ProcessEnvironment.homeDirectory),
                      now: WallClock.now().secondsSinceEpoch)
        spaceAlerts?.check(snapshot, now: WallClock.now().secondsSinceEpoch)
        writerNaming?.published(snapshot)
        if isReady && !StatusText.saysTheSame(previous, snapshot) { updateStatus() }
        busObjects?.show(snapshot, watchedPath: watch.path, options: watch.profiles.options(watchedPath: watch.path, snapshot: snapshot))
        clients?.publish(watch)
    }

    /// The helper said who is filling the filesystem mounted at `mountPoint`: its watches
    /// show it (a publish, so that D-Bus and every client hear it).
    private func writersNamed(_ found: FillWriters, on mountPoint: String) {
        for watch in watches where watch.snapshot?.mountPoint == mountPoint {
            guard let named = watch.named(found) else { continue }
            let previous = watch.snapshot
            watch.show(named)
            announce(named, of: watch, after: previous)
        }
    }

    private func logPublish(_ snapshot: Snapshot, after previous: Snapshot?) {
        // A disk in use publishes every sample: the journal gets a line when df's Use% or
        // the state changes (or --verbose), not one a second, and the line is built only then.
        let level: Logger.Level = snapshot.state != .fresh ? .warning : PublishSummary.isWorthALine(snapshot, after: previous) ? .info : .debug
        guard logger.logLevel <= level else { return }
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
        if let estimate = snapshot.timeToFull { metadata["time_to_full"] = "\(estimate)" }
        if let fill = snapshot.fastFill { metadata["fast_fill"] = "\(fill)" }
        if let btrfs = snapshot.btrfs {
            metadata["btrfs_unallocated_bytes"] = "\(btrfs.unallocatedBytes)"
            metadata["btrfs_metadata_state"] = "\(btrfs.metadataLevel.rawValue)"
        }
        let summary = PublishSummary.describe(snapshot)
        switch snapshot.state {
        case .fresh: logger.log(level: level, "published \(summary)", metadata: metadata)
        case .stale: logger.warning("the filesystem does not answer; serving the last snapshot as stale: \(summary)", metadata: metadata)
        case .failed: logger.warning("sampling failed: \(summary)", metadata: metadata)
        }
    }

    private func updateStatus() { notifier.status(statusText) }

    private var statusText: String { StatusText.describe(watches.map { $0.snapshot }, configurationProblem: state.problem) }

    private func becomeReady() {
        isReady = true
        notifier.ready(status: statusText)
        logger.notice("ready: \(statusText)", metadata: ["status": "\(statusText)"])
    }

    private func writeTextfile() {
        state.textfile?.write(PrometheusTextRenderer.render(watches.compactMap { $0.snapshot }))
    }

    // MARK: - Time to full

    private func beat() {
        let now = WallClock.now()
        for watch in watches {
            guard let snapshot = watch.snapshot, snapshot.state == .fresh else { continue }
            // Same numbers, another outlook: worth a new snapshot.
            if let republished = watch.republish(with: tracker.record(snapshot, at: now)) {
                watch.show(republished)
                announce(republished, of: watch, after: snapshot)
            }
        }
        saveHistory()
        heartbeat?.schedule(afterMicroseconds: TimeToFullTracker.heartbeatMicroseconds)
    }

    private func saveHistory() {
        let cutoff = settings.followsMounts ? WallClock.now().secondsSinceEpoch - TimeToFullTracker.unmountedRetentionSeconds : nil
        historyFile?.write(tracker.encoded(keeping: watches.compactMap { $0.snapshot?.path }, recordedSince: cutoff))
    }

    // MARK: - Reload

    /// Reloads the configuration file: all of it, or nothing. Returns what it did, or why
    /// it kept the running configuration.
    private func reload() -> Result<String, ConfigurationRefusal> {
        apply(Result { () throws(ConfigurationRefusal) in try loader.load() }, arrivedLate: false)
    }

    /// Runs a configuration read from the file: all of it, or nothing. `arrivedLate`: the
    /// file that had not answered at start-up, now read.
    private func apply(_ loaded: Result<Configuration, ConfigurationRefusal>, arrivedLate: Bool) -> Result<String, ConfigurationRefusal> {
        notifier.reloading()
        defer { notifier.ready(status: statusText) }
        let plan: ReloadPlan
        do throws(ConfigurationRefusal) {
            let configuration = try loaded.get()
            do {
                plan = try ReloadPlan.prepare(configuration, replacing: state, factory: self, automatic: try automaticPaths(for: configuration))
            } catch {
                throw ConfigurationRefusal(file: paths.configFile, line: 0, message: error.description)
            }
        } catch {
            let refusal = error
            state.problem = refusal.description + (state.isDefaults ? "; running with the default settings" : "; the configuration loaded before still runs")
            for watch in watches { watch.invalidateRenderings() }
            busObjects?.setConfigurationProblem(state.problem)
            logger.error("configuration refused, the previous one still runs: \(refusal.description)",
                         metadata: ["config": "\(paths.configFile)", "reason": "\(refusal.description)"])
            return .failure(refusal)
        }
        commit(plan)
        let summary = (arrivedLate ? "read \(paths.configFile) at last" : "reloaded \(paths.configFile)") + ": watching \(watches.map { $0.path }.joined(separator: ", ")) every \(DurationParser.describe(microseconds: settings.intervalMicroseconds))"
        logger.notice("\(summary)", metadata: ["config": "\(paths.configFile)"])
        return .success(summary)
    }

    /// Swaps in a prepared state; nothing here can fail. `unmounted`: the removed watches
    /// end because their filesystems were unmounted, not because the configuration changed.
    private func commit(_ plan: ReloadPlan, unmounted: Bool = false) {
        for removed in plan.removed { end(removed, unmounted: unmounted) }
        state = plan.state
        if !settings.followsMounts { mountWatcher = nil }
        for watch in watches { watch.invalidateRenderings() }
        applyBarSettings()
        applySamplingSettings()
        showWatchesOnTheBus()
        server?.maximumClients = settings.maximumClients
        alerts?.policy = state.configuration.notify
        spaceAlerts?.policy = state.configuration.notify
        writeTextfile()
        // Limits that changed change levels: every view follows now, not at the disk's next move.
        for watch in watches {
            guard let releveled = watch.releveled() else { continue }
            let previous = watch.snapshot
            watch.show(releveled)
            announce(releveled, of: watch, after: previous)
        }
        // The watches changed (a reload, a mount): the file says which there are now.
        stateSaver?.changed(seq: 0)
        saveHistory()
    }

    /// A watch's end: its subscribers are told (one path's: an error, as before; every
    /// path's: a last `update` of it, failed and marked `watch_ended`), and its notifications
    /// taken down. Its thread ends when the watch is let go, after its current sample; one
    /// stuck in statvfs on a dead mount stays stuck, but holds nothing of the loop's.
    private func end(_ watch: WatchedPath, unmounted: Bool) {
        let reason = unmounted ? "\(watch.path) was unmounted; no longer watched" : "\(watch.path) is no longer watched"
        let last = watch.end(reason: reason, unmounted: unmounted)
        if let last { watch.show(last) }
        clients?.ended(watch, reason: reason, lastShown: last != nil)
        alerts?.retire(watch.path)
        spaceAlerts?.retire(watch.path)
        if let snapshot = watch.snapshot, snapshot.path != watch.path {
            alerts?.retire(snapshot.path)
            spaceAlerts?.retire(snapshot.path)
        }
    }

    // MARK: - Following mounts (path = auto)

    /// The mount points `path = auto` watches under `configuration` (none without it),
    /// following the mount table from now on.
    private func automaticPaths(for configuration: Configuration) throws(DaemonFailure) -> [String] {
        guard configuration.daemon.followsMounts else { return [] }
        if mountWatcher == nil {
            do {
                mountWatcher = try MountWatcher(loop: loop, logger: logger) { [unowned(unsafe) self] entries in self.mountsChanged(entries) }
            } catch {
                throw DaemonFailure(error)
            }
        }
        guard let entries = mountWatcher?.read() else { return state.automaticPaths }
        return mountFollowing.wanted(in: entries, besides: explicitPaths(of: configuration))
    }

    private func explicitPaths(of configuration: Configuration) -> [String] {
        configuration.daemon.paths.compactMap { DaemonSettings.expand($0, home: ProcessEnvironment.homeDirectory) }
            .map { LexicalPath.normalize($0, currentDirectory: "/") }
    }

    /// The mount table changed (and settled): new filesystems are watched, unmounted ones
    /// end, in one step as a reload makes it.
    private func mountsChanged(_ entries: [MountEntry]) {
        guard settings.followsMounts, !isStopping else { return }
        let (wanted, diff) = mountFollowing.changes(in: entries, besides: explicitPaths(of: state.configuration), from: state.automaticPaths)
        let reads = mountWatcher?.reads ?? 0
        guard !diff.isEmpty else {
            logger.debug("mount table read (read \(reads)): no filesystem to add or remove", metadata: ["mount_table_reads": "\(reads)"])
            return
        }
        var plan: ReloadPlan
        do {
            plan = try ReloadPlan.prepare(state.configuration, replacing: state, factory: self, automatic: wanted)
        } catch {
            logger.error("cannot follow the mount table: \(error); watching the same filesystems until the next change",
                         metadata: ["reason": "\(error)", "mount_table_reads": "\(reads)"])
            return
        }
        plan.state.problem = state.problem
        plan.state.isDefaults = state.isDefaults
        commit(plan, unmounted: true)
        // Requests for every path may have waited for a watch that has just ended.
        clients?.answerWaitingRequests()
        let added = diff.added.map { ControlCharacters.replaced(in: $0) }.joined(separator: ", ")
        let removed = diff.removed.map { ControlCharacters.replaced(in: $0) }.joined(separator: ", ")
        logger.info("mount table changed (read \(reads)): watching \(diff.added.isEmpty ? "nothing new" : added); stopped watching \(diff.removed.isEmpty ? "nothing" : removed)",
                    metadata: ["added": "\(added)", "removed": "\(removed)", "mount_table_reads": "\(reads)"])
        if isReady { updateStatus() }
    }

    /// The publish rule and interval of the settings; the filesystems `path = auto` found
    /// are sampled every other interval while quiet (a change shows at most one interval
    /// later), the configured paths every interval.
    private func applySamplingSettings() {
        for watch in watches {
            watch.apply(policy: PublishPolicy(threshold: settings.threshold), intervalMicroseconds: settings.intervalMicroseconds,
                        relaxed: state.automaticPaths.contains(watch.configuredPath))
        }
    }

    /// The watches' objects on the session bus, with the labels and limits of the
    /// configuration now, and why the configuration is not what runs.
    private func showWatchesOnTheBus() {
        busObjects?.setConfigurationProblem(state.problem)
        busObjects?.watchesChanged(watches.map { watch in
            (watch.path, watch.snapshot, watch.profiles.options(watchedPath: watch.path, snapshot: watch.snapshot))
        })
    }

    /// The configuration's bar settings, for the watches' renderings of the bar formats.
    private func applyBarSettings() {
        let profiles = BarProfiles(configuration: state.configuration, home: ProcessEnvironment.homeDirectory)
        for watch in watches { watch.profiles = profiles }
    }

    // MARK: - Clients

    // MARK: - Clients (ClientsContext)

    var configurationProblem: String? { state.problem }
    var idleTimeoutMicroseconds: UInt64 { settings.idleTimeoutMicroseconds }
    func reloadForClient() -> Result<String, ConfigurationRefusal> { reload() }
}
