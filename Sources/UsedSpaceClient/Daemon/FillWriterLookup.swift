import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// Names who is filling a filesystem while a fast fill is seen, here in the user's session:
/// the daemon's sandbox (PrivateUsers=) cannot read the user's processes. The fastest writers
/// between the last two looks; a watch looks at an update a second after its first look,
/// then at most every 10 s (a look reads every process's files: a bar updated every second
/// through a fill would pay it each second); nothing is read while no fast fill is seen.
struct FillWriterLookup {
    private var survey = FillWriterSurvey()
    private var device: (mountPoint: String, major: UInt32, minor: UInt32)?
    private var last: [FillWriter]?
    private var lookedAt: UInt64?

    static let secondLookNanoseconds: UInt64 = 1_000_000_000
    static let refreshNanoseconds: UInt64 = 10_000_000_000

    /// `snapshot` with its writers when it shows a fast fill (the last ones found until a
    /// second look has rates), else as it is, and the lookup starts over.
    mutating func named(_ snapshot: Snapshot, now: UInt64 = MonotonicClock.nanoseconds(), always: Bool = false) -> Snapshot {
        guard snapshot.fastFill != nil, snapshot.state == .fresh, let device = device(of: snapshot) else {
            survey.forget()
            last = nil
            lookedAt = nil
            return snapshot
        }
        let wait = last == nil ? Self.secondLookNanoseconds : Self.refreshNanoseconds
        if always || lookedAt.map({ now < $0 || now - $0 >= wait }) ?? true {
            if let found = survey.look(device: device, now: now) { last = found }
            lookedAt = now
        }
        guard let last else { return snapshot }
        var named = snapshot
        named.fillWriters = FillWriters(last, home: ProcessEnvironment.homeDirectory)
        return named
    }

    /// For `status`: two looks `microseconds` apart at the filesystems of `snapshots` that
    /// show a fast fill (one wait for all of them); the others as they are.
    static func named(_ snapshots: [Snapshot], microseconds: UInt32 = 500_000) -> [Snapshot] {
        guard snapshots.contains(where: { $0.fastFill != nil && $0.state == .fresh }) else { return snapshots }
        var lookups = snapshots.map { _ in FillWriterLookup() }
        var named = snapshots
        for index in snapshots.indices { named[index] = lookups[index].named(snapshots[index], always: true) }
        usleep(microseconds)
        for index in snapshots.indices { named[index] = lookups[index].named(snapshots[index], always: true) }
        return named
    }

    /// The device of the snapshot's mount, from the mount table (the filesystem itself is
    /// never touched: it may be one that does not answer).
    private mutating func device(of snapshot: Snapshot) -> (major: UInt32, minor: UInt32)? {
        guard let mountPoint = snapshot.mountPoint else { return nil }
        if let device, device.mountPoint == mountPoint { return (device.major, device.minor) }
        survey.forget()
        last = nil
        guard let entry = (try? MountTable.read())?.last(where: { $0.mountPoint == mountPoint }) else { return nil }
        device = (mountPoint, entry.deviceMajor, entry.deviceMinor)
        return (entry.deviceMajor, entry.deviceMinor)
    }
}
