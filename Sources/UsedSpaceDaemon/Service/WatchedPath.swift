import UsedSpaceCore
import UsedSpaceSystem

/// One watched path on the daemon's loop: the thread that samples it (and decides, by the
/// publish rule, what is news), the loop's sources that hear from that thread and check on
/// it, and the snapshot clients are shown.
final class WatchedPath: ServedWatch {
    /// As configured (`~/…` allowed); identifies the watch across reloads.
    let configuredPath: String
    /// With `~` expanded; the sampling thread resolves it further (symlinks) each time.
    let path: String
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
    /// The [bar] and [filesystem] settings of the configuration: the bar formats are shown
    /// as `watch` shows them.
    var profiles = BarProfiles(configuration: Configuration(), home: nil) {
        didSet { renderings = [:] }
    }

    /// `published` is called on the loop with each snapshot the thread publishes, in order,
    /// and once after the first sample even when it published nothing new.
    /// `group`: the thread that samples the watched paths on local filesystems together.
    init(configuredPath: String, path: String, publisher: Publisher, settings: DaemonSettings, loop: EventLoop,
         group: SamplingGroup? = nil, published: @escaping (WatchedPath, Snapshot?) -> Void) throws {
        self.configuredPath = configuredPath
        self.path = path
        self.published = published
        sampler = try SamplingThread(path: path, publisher: publisher, intervalMicroseconds: settings.intervalMicroseconds,
                                     timeoutMicroseconds: settings.sampleTimeoutMicroseconds, group: group)
        snapshot = publisher.current
        wakeSource = try IOEventSource(loop: loop, descriptor: sampler.wake.descriptor, events: IOEvents.readable) { [unowned self] _ in
            self.collect()
        }
        alarmSource = try IOEventSource(loop: loop, descriptor: sampler.alarm.descriptor, events: IOEvents.readable) { [unowned self] _ in
            self.sampler.alarm.acknowledge()
            self.checkTimeout()
        }
    }

    private let published: (WatchedPath, Snapshot?) -> Void

    deinit {
        // The sources first: they must not outlive the descriptor they watch.
        wakeSource = nil
        alarmSource = nil
    }

    /// Starts the sampling thread (its first sample is taken at once).
    func start() throws {
        try sampler.start()
    }

    /// Publishes the path stale when its sample overran the timeout (its own alarm, or the
    /// sampling group's, went off).
    func checkTimeout() {
        if sampler.checkTimeout() { collect() }
    }

    /// Whether the thread has reported a sample (or a timeout): the snapshot is not merely
    /// the one restored from disk.
    private(set) var hasSampled = false

    private func collect() {
        let snapshots = sampler.takePublished()
        let first = !hasSampled && sampler.hasSampled
        hasSampled = hasSampled || first
        for snapshot in snapshots { published(self, snapshot) }
        if first && snapshots.isEmpty { published(self, nil) }
    }

    /// A snapshot of the state file that was read late: shown while nothing is, and its seq
    /// carried on (Publisher.adopt).
    func adopt(_ restored: Snapshot) {
        let current = sampler.adopt(restored)
        if snapshot == nil, let current { show(current) }
    }

    /// Makes `snapshot` the one shown (the manager has added its time-to-full estimate).
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
