import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// Names who is filling a filesystem while a fast fill is seen, where the daemon has not:
/// its snapshot carries the writers its helper found (Snapshot.fillWriters), and those are
/// shown as they are. Otherwise the client looks here, in the user's session.
///
/// A watch looks at an update, then a second after that look, then at most every 10 s (a
/// look reads every process's files: a bar updated every second through a fill would pay it
/// each second), each window judged by the free space of the snapshots it saw at its ends,
/// so that the watch touches no filesystem itself. A look that saw nobody write keeps the
/// writers named before, while the fill goes on (FillWriters.followed). A look that saw growth
/// and none of the user's processes write is judged again at the next look, a second later,
/// over both windows: a write still going on at it has grown the filesystem but is counted
/// only when it returns. Nothing is read while no fast fill is seen.
struct FillWriterLookup {
    private let survey: FillWriterSurvey
    private var device: (mountPoint: String, major: UInt32, minor: UInt32)?
    /// The last look, and the free space of the snapshot it was taken for.
    private var last: (look: FillWriterSurvey.Look, freeBytes: UInt64?)?
    /// What is said now, during this fill.
    private var said: FillWriters?
    /// When the last look saw growth and no writer of the user's (not said yet).
    private var doubtedAt: UInt64?

    init(survey: FillWriterSurvey = FillWriterSurvey()) {
        self.survey = survey
    }

    static let secondLookNanoseconds: UInt64 = 1_000_000_000
    static let refreshNanoseconds: UInt64 = 10_000_000_000

    /// `snapshot` with its writers when it shows a fast fill, else as it is, and the lookup
    /// starts over.
    mutating func named(_ snapshot: Snapshot, now: UInt64 = MonotonicClock.nanoseconds()) -> Snapshot {
        guard snapshot.fastFill != nil, snapshot.state == .fresh, let device = device(of: snapshot) else {
            last = nil
            said = nil
            doubtedAt = nil
            return snapshot
        }
        // The daemon named them: the same words in every view.
        if let named = snapshot.fillWriters {
            said = named
            return snapshot
        }
        let free = snapshot.stats?.freeBytes
        if let last {
            let since = doubtedAt ?? last.look.nanoseconds
            let wait = said == nil || doubtedAt != nil ? Self.secondLookNanoseconds : Self.refreshNanoseconds
            if now < since || now - since >= wait {
                let look = survey.look(now: now)
                let seen = survey.writers(from: last.look, to: look, device: device, freeBefore: last.freeBytes, freeAfter: free,
                                          home: ProcessEnvironment.homeDirectory)
                if seen.writers.isEmpty && seen.sawGrowth && doubtedAt == nil {
                    doubtedAt = now
                } else {
                    doubtedAt = nil
                    said = said.map { $0.followed(by: seen) } ?? seen
                    self.last = (look, free)
                }
            }
        } else {
            last = (survey.look(now: now), free)
        }
        guard let said else { return snapshot }
        var named = snapshot
        named.fillWriters = said
        return named
    }

    /// For `status`: one window of looks (FillWriterWindow) at the filesystems of `snapshots`
    /// that show a fast fill the daemon has not named the writers of (one wait for all of
    /// them); the others as they are.
    static func named(_ snapshots: [Snapshot]) -> [Snapshot] {
        let unnamed = snapshots.indices.filter { snapshots[$0].fastFill != nil && snapshots[$0].state == .fresh && snapshots[$0].fillWriters == nil }
        guard !unnamed.isEmpty, let mounts = try? MountTable.read() else { return snapshots }
        var targets: [(index: Int, target: FillWriterWindow.Target)] = []
        for index in unnamed {
            guard let mountPoint = snapshots[index].mountPoint, let entry = mounts.last(where: { $0.mountPoint == mountPoint }) else { continue }
            targets.append((index, FillWriterWindow.Target(entry)))
        }
        var named = snapshots
        for (target, seen) in zip(targets, FillWriterWindow.look(at: targets.map { $0.target }, home: ProcessEnvironment.homeDirectory)) {
            named[target.index].fillWriters = seen
        }
        return named
    }

    /// The device of the snapshot's mount, from the mount table (the filesystem itself is
    /// never touched: it may be one that does not answer).
    private mutating func device(of snapshot: Snapshot) -> (major: UInt32, minor: UInt32)? {
        guard let mountPoint = snapshot.mountPoint else { return nil }
        if let device, device.mountPoint == mountPoint { return (device.major, device.minor) }
        last = nil
        said = nil
        doubtedAt = nil
        guard let entry = (try? MountTable.read())?.last(where: { $0.mountPoint == mountPoint }) else { return nil }
        device = (mountPoint, entry.deviceMajor, entry.deviceMinor)
        return (entry.deviceMajor, entry.deviceMinor)
    }
}
