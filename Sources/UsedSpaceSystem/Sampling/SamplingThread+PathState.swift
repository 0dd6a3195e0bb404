import CLinux
import UsedSpaceCore

/// What sampling one path keeps from one sample to the next (SamplingThread's per-path
/// cache): its resolution, the quick check's plain values, the probe, and the readings a
/// group's pass shares.
extension SamplingThread {
    /// What sampling one path keeps from one sample to the next, besides the shared state:
    /// it moves with the path between its own thread and a group's. (Unchecked: it is handed
    /// from one thread to the next, never used by two at once.)
    struct PathCache: @unchecked Sendable {
        var resolution: PathSampler.Resolution?
        var btrfs = BtrfsAllocationReader()
        var quota = QuotaTracker()
        /// Samples a path (tests inject a slow one): PathSampler's stat + statvfs.
        var measure: @Sendable (String, inout PathSampler.Resolution?) -> Sample = { path, resolution in
            PathSampler.sample(path, reusing: &resolution)
        }
        /// One statvfs, for the check that nothing changed (tests inject a slow one); the
        /// filesystem's read-only state comes from the resolution (Statvfs).
        var read: @Sendable (ContiguousArray<CChar>, Bool) throws(SystemError) -> Statvfs.Reading = { path, readOnly throws(SystemError) in
            try Statvfs.reading(of: path, readOnly: readOnly)
        }
        /// What the check at every sample reads, as plain values: reading them from
        /// `resolution` would cost its strings' retains.
        var quick = QuickCheck()
        /// The child that makes the path's filesystem calls, for a path on a filesystem that
        /// may hang (not RealFilesystems.isKnownLocal): the thread then never enters it, and
        /// the process can always exit. nil: the calls are made here (`measure`, `read`).
        var probe: FilesystemProbe?

        /// A full sample: through the probe, or here.
        mutating func fullSample(_ path: String) -> Sample {
            if let probe { return PathSampler.sample(path, probe: probe, reusing: &resolution) }
            return measure(path, &resolution)
        }

        /// A probe for a path whose filesystem may hang, none for one known local (by its
        /// last resolution, or lexically before the first).
        mutating func fitProbe(path: String, knownLocal: Bool) {
            if knownLocal {
                probe = nil
            } else if probe == nil {
                probe = FilesystemProbe(path: path)
            }
        }

        /// After a full sample: what the resolution now says.
        mutating func resolutionChanged(path: String) {
            guard let resolution else {
                quick = QuickCheck()
                return
            }
            quick.isOwnMountPoint = resolution.canonicalPath == path && resolution.mount?.mountPoint == path
            quick.deviceMajor = resolution.device.major
            quick.deviceMinor = resolution.device.minor
            quick.inode = resolution.inode
            // A mount the table does not show may be anything: not known to be local.
            quick.isKnownLocal = resolution.mount.map { RealFilesystems.isKnownLocal($0.fileSystemType) } ?? false
            quick.readOnly = resolution.mount?.readOnly ?? false
        }

        var isKnownLocal: Bool { quick.isKnownLocal }
    }

    /// Of a path's resolution and last sample, what tells that a statvfs is of the same
    /// filesystem as the last full sample.
    struct QuickCheck {
        /// The `f_fsid` that went with the last full sample's figures (nil: none yet, or
        /// it failed). Another filesystem mounted at the path has another one.
        var identifier: UInt64?
        /// The path is a mount point watched by its own canonical name: no `stat` needed.
        var isOwnMountPoint = false
        var deviceMajor: UInt32 = 0
        var deviceMinor: UInt32 = 0
        var inode: UInt64 = 0
        /// RealFilesystems.isKnownLocal of its type: only those join a group.
        var isKnownLocal = false
        /// The figures of the last statvfs, to tell a quiet path.
        var statistics: FilesystemStats?
        /// The filesystem is read-only, by the mount table when the path was resolved.
        var readOnly = false
        /// statvfs's ST_RDONLY at the last reading: when it changes (a remount), the mount
        /// table is read again.
        var viewReadOnly: Bool?
        /// When the path was last resolved (its mount table read).
        var resolvedAt: UInt64 = 0

        /// How long a resolution is trusted while statvfs says read-only: a remount of the
        /// filesystem shows in no statvfs figure where the view is read-only anyway (the
        /// shipped unit's sandbox), only in the mount table.
        static let readOnlyRecheckNanoseconds: UInt64 = 60_000_000_000

        /// Whether `reading`'s read-only flag calls for the mount table to be read again.
        func mustResolveAgain(after reading: Statvfs.Reading, now: UInt64) -> Bool {
            guard let viewReadOnly else { return false }
            return reading.viewReadOnly != viewReadOnly || (reading.viewReadOnly && now >= resolvedAt + Self.readOnlyRecheckNanoseconds)
        }
    }

    /// The readings a group's pass took, by device: paths on one filesystem (directories
    /// of one disk) are read once per pass. Only a path whose `stat` put it on that device
    /// uses another's reading; a mount point watched by its own name is read itself.
    struct PassReadings {
        private var readings: [(device: UInt64, reading: Statvfs.Reading)] = []
        /// A path sampled on its own thread has no other path to share with: nothing is
        /// kept (no allocation per sample).
        private let sharing: Bool

        init(sharing: Bool = true) { self.sharing = sharing }

        func reading(deviceMajor: UInt32, deviceMinor: UInt32) -> Statvfs.Reading? {
            let device = UInt64(deviceMajor) << 32 | UInt64(deviceMinor)
            return readings.first { $0.device == device }?.reading
        }

        mutating func keep(_ reading: Statvfs.Reading, deviceMajor: UInt32, deviceMinor: UInt32) {
            guard sharing else { return }
            let device = UInt64(deviceMajor) << 32 | UInt64(deviceMinor)
            if !readings.contains(where: { $0.device == device }) { readings.append((device, reading)) }
        }
    }
}
