import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// Names who is filling a filesystem while a fast fill is seen, here in the user's session:
/// the daemon's sandbox (PrivateUsers=) cannot read the user's processes. A look at each
/// update of the filesystem, fastest writers between the last two; nothing is read while no
/// fast fill is seen.
struct FillWriterLookup {
    private var survey = FillWriterSurvey()
    private var device: (mountPoint: String, major: UInt32, minor: UInt32)?
    private var last: [FillWriter]?

    /// `snapshot` with its writers when it shows a fast fill (the last ones found until a
    /// second look has rates), else as it is, and the lookup starts over.
    mutating func named(_ snapshot: Snapshot) -> Snapshot {
        guard snapshot.fastFill != nil, snapshot.state == .fresh, let device = device(of: snapshot) else {
            survey.forget()
            last = nil
            return snapshot
        }
        if let found = survey.look(device: device) { last = found }
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
        for index in snapshots.indices { named[index] = lookups[index].named(snapshots[index]) }
        usleep(microseconds)
        for index in snapshots.indices { named[index] = lookups[index].named(snapshots[index]) }
        return named
    }

    /// The device of the snapshot's mount, from the mount table (the filesystem itself is
    /// never touched: it may be one that does not answer).
    private mutating func device(of snapshot: Snapshot) -> (major: UInt32, minor: UInt32)? {
        guard let mountPoint = snapshot.mountPoint else { return nil }
        if let device, device.mountPoint == mountPoint { return (device.major, device.minor) }
        survey.forget()
        guard let entry = (try? MountTable.read())?.last(where: { $0.mountPoint == mountPoint }) else { return nil }
        device = (mountPoint, entry.deviceMajor, entry.deviceMinor)
        return (entry.deviceMajor, entry.deviceMinor)
    }
}
