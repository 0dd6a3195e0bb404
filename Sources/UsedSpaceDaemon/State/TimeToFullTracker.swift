import UsedSpaceCore

/// The usage history of every watched filesystem and the time-to-full estimate it gives
/// (docs/time-to-full.md). Pure: the manager feeds it snapshots and the time, and saves
/// `encoded` in the state directory.
struct TimeToFullTracker {
    /// Every 15 minutes the manager records a point even when nothing changed (the estimate
    /// reads the history as a step function) and saves the histories.
    static let heartbeatMicroseconds: UInt64 = 15 * 60 * 1_000_000

    private let estimator = TimeToFullEstimator()
    /// By the snapshot's (canonical) path.
    private var histories: [String: UsageHistory]
    /// The filesystem each history is of: another one at the path (a disk swapped) starts a
    /// new history, since the old one's past says nothing about it.
    private var fileSystems: [String: String] = [:]

    init(histories: [String: UsageHistory] = [:]) {
        self.histories = histories
    }

    /// The history file read late (it answered after start-up): the histories of the paths
    /// this run has not recorded yet.
    mutating func adopt(_ stored: TimeToFullTracker) {
        for (path, history) in stored.histories where histories[path] == nil { histories[path] = history }
    }

    /// Reads the history file; the problems are of the lines that did not read.
    static func decode(_ text: String) -> (tracker: TimeToFullTracker, problems: [String]) {
        let (histories, problems) = HistoryFile.decode(text)
        return (TimeToFullTracker(histories: histories), problems)
    }

    /// The history file's text, with the histories of `paths` only (watches removed by a
    /// reload are forgotten), and, with `recordedSince`, those with a point since then too:
    /// with `path = auto`, a disk unplugged for a while continues its history when it comes
    /// back.
    func encoded(keeping paths: [String], recordedSince cutoff: Int64? = nil) -> String {
        HistoryFile.encode(histories.filter { path, history in
            paths.contains(path) || cutoff.map { (history.last?.secondsSinceEpoch ?? .min) >= $0 } ?? false
        })
    }

    /// How long `path = auto` keeps the history of a filesystem that is not mounted.
    static let unmountedRetentionSeconds: Int64 = 7 * 24 * 3600

    /// Notes which filesystem a snapshot restored from the state file was of, so that a disk
    /// swapped while the daemon was stopped does not continue the old disk's history.
    mutating func restore(_ snapshot: Snapshot) {
        guard snapshot.stats != nil, fileSystems[snapshot.path] == nil else { return }
        fileSystems[snapshot.path] = Self.fileSystemIdentity(snapshot)
    }

    /// The last estimate of each path and when it was made: a trend of hours does not move
    /// within a minute, and a disk in use publishes every second (estimating costs more than
    /// the rest of a publish). Fast fills are the fast-fill detector's, at every sample.
    private var lastEstimates: [String: (at: Int64, estimate: TimeToFull?)] = [:]
    static let estimateIntervalSeconds: Int64 = 60

    /// Adds a point for a fresh snapshot (at `time`, or when it was sampled) and returns the
    /// estimate; nil without a significant trend, or for a snapshot that is not fresh. Within
    /// a minute of the last estimate, that one, counted down by the time since.
    mutating func record(_ snapshot: Snapshot, at time: Timestamp? = nil) -> TimeToFull? {
        // Under a quota that binds, the trend is that of the room the quota leaves.
        guard snapshot.state == .fresh, let stats = snapshot.limitingStats else { return nil }
        let identity = Self.fileSystemIdentity(snapshot)
        var history = histories[snapshot.path] ?? UsageHistory()
        let swapped = fileSystems[snapshot.path].map { $0 != identity } ?? false
        if swapped { history = UsageHistory() }
        fileSystems[snapshot.path] = identity
        let now = (time ?? snapshot.sampledAt).secondsSinceEpoch
        history.append(secondsSinceEpoch: now, availableBytes: stats.freeBytes)
        histories[snapshot.path] = history
        if !swapped, let last = lastEstimates[snapshot.path], now >= last.at, now - last.at < Self.estimateIntervalSeconds {
            return last.estimate.map { $0.advanced(bySeconds: now - last.at) }
        }
        let (total, overflow) = stats.usedBytes.addingReportingOverflow(stats.freeBytes)
        let estimate = estimator.estimate(history, now: now, totalBytes: overflow ? .max : total)
        lastEstimates[snapshot.path] = (now, estimate)
        return estimate
    }

    /// Which filesystem a snapshot is of, as far as a history cares (a quota that comes or
    /// goes, or another limit, starts a history of its own).
    static func fileSystemIdentity(_ snapshot: Snapshot) -> String {
        "\(snapshot.mountPoint ?? "") \(snapshot.fileSystemType ?? "") \(snapshot.stats?.totalBytes ?? 0)"
            + (snapshot.quota.map { " \($0.kind.rawValue) \($0.limitBytes)" } ?? "")
    }
}
