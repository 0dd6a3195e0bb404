import UsedSpaceCore
import UsedSpaceSystem

/// One watched path on the daemon's loop: the thread that samples it (and decides, by the
/// publish rule, what is news), the loop's sources that hear from that thread and check on
/// it, and the snapshot clients are shown. It owns the path's snapshot stream: every
/// snapshot comes from its thread's Publisher, and gets its time-to-full estimate, its level
/// (FilesystemLevel, from the last one's) and, during a fast fill, who is filling it
/// (FillWriterNaming) here before anyone sees it.
final class WatchedPath: ServedWatch {
    /// As configured (`~/…` allowed); identifies the watch across reloads.
    let configuredPath: String
    /// With `~` expanded; the sampling thread resolves it further (symlinks) each time.
    let path: String
    /// Internal for the tests, which watch its thread end; everything else goes through the
    /// methods here.
    let sampler: SamplingThread
    private var wakeSource: IOEventSource?
    /// The sampling thread's alarm: readable only when a sample overran the timeout.
    private var alarmSource: IOEventSource?
    /// What clients are shown: the last snapshot published (with its time-to-full), or the
    /// one restored from the state file until the first sample.
    private(set) var snapshot: Snapshot?
    /// Renderings of the current snapshot by view, so a publish to a thousand subscribers
    /// renders each view once. Cleared whenever the snapshot changes.
    private var renderings: [String: [String]] = [:]
    /// The [bar] and [filesystem] settings of the configuration: the limits its level is
    /// decided by, and the bar formats shown as `watch` shows them.
    var profiles = BarProfiles(configuration: Configuration(), home: nil) {
        didSet { renderings = [:] }
    }
    /// Who is filling the filesystem, while a fast fill goes on (FillWriterNaming).
    private var writers: FillWriters?
    /// Records a fresh snapshot in its history and gives the estimate (the manager's
    /// TimeToFullTracker, shared by every watch's history file).
    private let estimate: (Snapshot) -> TimeToFull?
    private let published: (WatchedPath, Snapshot?) -> Void

    /// `published` is called on the loop with each snapshot the thread publishes, in order,
    /// and once after the first sample even when it published nothing new.
    /// `group`: the thread that samples the watched paths on local filesystems together.
    init(configuredPath: String, path: String, publisher: Publisher, settings: DaemonSettings, loop: EventLoop,
         group: SamplingGroup? = nil, estimate: @escaping (Snapshot) -> TimeToFull?,
         published: @escaping (WatchedPath, Snapshot?) -> Void) throws(SystemError) {
        self.configuredPath = configuredPath
        self.path = path
        self.estimate = estimate
        self.published = published
        sampler = try SamplingThread(path: path, publisher: publisher, intervalMicroseconds: settings.intervalMicroseconds,
                                     timeoutMicroseconds: settings.sampleTimeoutMicroseconds, group: group)
        snapshot = publisher.current
        wakeSource = try IOEventSource(loop: loop, descriptor: sampler.wake.descriptor, events: IOEvents.readable) { [unowned(unsafe) self] _ in
            self.collect()
        }
        alarmSource = try IOEventSource(loop: loop, descriptor: sampler.alarm.descriptor, events: IOEvents.readable) { [unowned(unsafe) self] _ in
            self.sampler.alarm.acknowledge()
            self.checkTimeout()
        }
    }

    deinit {
        // The sources first: they must not outlive the descriptor they watch.
        wakeSource = nil
        alarmSource = nil
    }

    /// Starts the sampling thread (its first sample is taken at once).
    func start() throws(SystemError) {
        try sampler.start()
    }

    /// Publishes the path stale when its sample overran the timeout (its own alarm, or the
    /// sampling group's, went off).
    func checkTimeout() {
        if sampler.checkTimeout() { collect() }
    }

    /// The publish rule, the interval, and whether the path is sampled every other interval
    /// while quiet (the filesystems `path = auto` found), from now on.
    func apply(policy: PublishPolicy, intervalMicroseconds: UInt64, relaxed: Bool) {
        sampler.setPolicy(policy)
        sampler.setInterval(microseconds: intervalMicroseconds)
        sampler.setRelaxed(relaxed)
    }

    /// Whether the thread has reported a sample (or a timeout): the snapshot is not merely
    /// the one restored from disk.
    private(set) var hasSampled = false

    private func collect() {
        let snapshots = sampler.takePublished()
        let first = !hasSampled && sampler.hasSampled
        hasSampled = hasSampled || first
        for snapshot in snapshots { published(self, completed(snapshot)) }
        if first && snapshots.isEmpty { published(self, nil) }
    }

    /// A fresh snapshot gets the estimate of its history; a stale one keeps the last one's.
    /// Then its level, and during a fast fill its writers.
    private func completed(_ new: Snapshot) -> Snapshot {
        var shown = new
        switch new.state {
        case .fresh: shown.timeToFull = estimate(new)
        case .stale: shown.timeToFull = snapshot?.timeToFull
        case .failed: shown.timeToFull = nil
        }
        if new.state == .fresh && new.fastFill != nil {
            shown.fillWriters = writers
        } else if new.state != .stale {
            writers = nil
        }
        return leveled(shown)
    }

    /// The snapshot with its level, decided from the last one shown (the hysteresis goes on
    /// across restarts: the state file keeps it).
    private func leveled(_ new: Snapshot) -> Snapshot {
        var shown = new
        shown.level = FilesystemLevel.decide(new, limits: limits(for: new), previous: snapshot?.level)
        return shown
    }

    private func limits(for snapshot: Snapshot) -> SeverityPolicy {
        profiles.options(watchedPath: path, snapshot: snapshot).severity
    }

    /// The same numbers with another outlook (the history's estimate changed while they did
    /// not): a new snapshot, the next seq; nil when the estimate is the same or there are
    /// no numbers.
    func republish(with estimate: TimeToFull?) -> Snapshot? {
        guard estimate?.description != snapshot?.timeToFull?.description, var republished = sampler.republish() else { return nil }
        republished.timeToFull = estimate
        if republished.state == .fresh && republished.fastFill != nil { republished.fillWriters = writers }
        return leveled(republished)
    }

    /// The same numbers at another level, when the limits changed (a reload) and the level
    /// with them: a new snapshot, the next seq, so that every view follows at once; nil when
    /// the level stays.
    func releveled() -> Snapshot? {
        // What the thread has published meanwhile goes first (at the new limits), so that
        // the seq of what follows is the newest.
        collect()
        guard let snapshot else { return nil }
        let level = FilesystemLevel.decide(snapshot, limits: limits(for: snapshot), previous: snapshot.level)
        guard level != snapshot.level else { return nil }
        return republished { $0.level = level }
    }

    /// The same numbers with who is filling the filesystem (the helper answered): a new
    /// snapshot, the next seq; nil when no fill is shown or they say what it says already.
    func named(_ found: FillWriters) -> Snapshot? {
        writers = found
        collect()
        guard let snapshot, snapshot.state == .fresh, snapshot.fastFill != nil, snapshot.fillWriters != found else { return nil }
        return republished { $0.fillWriters = found }
    }

    /// The snapshot shown, changed, as the next seq; nil without numbers.
    private func republished(_ change: (inout Snapshot) -> Void) -> Snapshot? {
        guard var shown = snapshot, let republished = sampler.republish() else { return nil }
        shown.seq = republished.seq
        change(&shown)
        return shown
    }

    /// The watch's last snapshot: failed, with the reason, marked `watch_ended`.
    func end(reason: String, unmounted: Bool) -> Snapshot? {
        sampler.end(reason: reason, unmounted: unmounted).map(leveled)
    }

    /// A snapshot of the state file that was read late: shown while nothing is, and its seq
    /// carried on (Publisher.adopt).
    func adopt(_ restored: Snapshot) {
        let current = sampler.adopt(restored)
        if snapshot == nil, let current { show(current) }
    }

    /// Makes `snapshot` the one shown.
    func show(_ snapshot: Snapshot) {
        self.snapshot = snapshot
        renderings = [:]
    }

    /// The lines of a `status` or `update` answer for this path in `view`.
    func lines(for view: ViewRequest, configurationProblem: String?) -> [String] {
        guard var snapshot else { return [] }
        snapshot.configurationProblem = configurationProblem
        let key = view.format.name + (view.details ? "+details" : "")
        if let cached = renderings[key] { return cached }
        var options = BarOptions()
        if case .rendered(let format) = view.format, format.isBar { options = profiles.options(watchedPath: path, snapshot: snapshot) }
        let lines = SnapshotView.lines(snapshot, format: view.format, details: view.details, options: options)
        renderings[key] = lines
        return lines
    }

    /// Forgets the renderings (what they show besides the snapshot changed: a reload).
    func invalidateRenderings() { renderings = [:] }

    /// Whether a request for `requested` (a canonical path from a client) means this watch.
    func matches(_ requested: String) -> Bool {
        requested == path || requested == snapshot?.path
    }
}
