import CLinux
import UsedSpaceCore

/// One sample of a path, the body of a sampling thread's loop and of a group's pass: a
/// quick statvfs that decides most samples are no news, else a full sample fed to the
/// path's Publisher.
extension SamplingThread {
    /// statvfs of the path, when its resolution still holds and so the reading is of the
    /// filesystem last sampled in full; nil when it must be sampled in full. A mount point
    /// watched by its own name needs no `stat` to know that: another filesystem mounted
    /// there has another identifier, and a full sample follows.
    static func quickReading(of path: ContiguousArray<CChar>, _ quick: QuickCheck,
                             read: (ContiguousArray<CChar>, Bool) throws(SystemError) -> Statvfs.Reading,
                             sharing pass: inout PassReadings) -> Statvfs.Reading? {
        guard let identifier = quick.identifier else { return nil }
        if !quick.isOwnMountPoint {
            guard let status = try? FileStatus.of(path), status.deviceMajor == quick.deviceMajor, status.deviceMinor == quick.deviceMinor,
                  status.inode == quick.inode else { return nil }
            // The stat showed the path on that filesystem: a reading of it in this pass
            // (another path on it) is this path's too.
            if let shared = pass.reading(deviceMajor: quick.deviceMajor, deviceMinor: quick.deviceMinor), shared.identifier == identifier {
                return shared
            }
        }
        guard let reading = try? read(path, quick.readOnly), reading.identifier == identifier else { return nil }
        pass.keep(reading, deviceMajor: quick.deviceMajor, deviceMinor: quick.deviceMinor)
        return reading
    }

    /// Marks the sample due now as running (with the lock held): from now on `checkTimeout`
    /// measures it. Returns the interval it is taken for.
    static func begin(_ state: inout State, now: UInt64) -> UInt64 {
        state.runningSince = now
        return state.intervalNanoseconds
    }

    /// Takes the sample `begin` started, feeds it to the publisher and wakes the owner when
    /// it is news: the body of a sampling thread's loop and of a group's, for one path.
    static func sample(_ sampled: SampledPath, interval: UInt64) {
        var alone = PassReadings(sharing: false)
        sample(sampled, interval: interval, sharing: &alone)
    }

    /// With the readings of the group's pass so far.
    static func sample(_ sampled: SampledPath, interval: UInt64, sharing pass: inout PassReadings) {
        let path = sampled.path, shared = sampled.shared
        shared.withLock { $0.inFlight = true }
        // Most samples are no news (a quiet filesystem, or figures that moved less than the
        // threshold): one statvfs, with the publisher's figures, decides that without
        // building a sample, at a fraction of the cost.
        var now = MonotonicClock.nanoseconds()
        var reading = quickReading(of: sampled.cPath, sampled.cache.quick, read: sampled.cache.read, sharing: &pass)
        if let quick = reading, sampled.cache.quick.mustResolveAgain(after: quick, now: now) {
            // A full sample, with the mount table read again (a remount read-only or back).
            reading = nil
            sampled.cache.resolution = nil
        } else if reading != nil, sampled.cache.probe == nil, sampled.cache.quota.isDue(now: now) {
            // A full sample, for the quota's limits (a limit set or lifted meanwhile).
            reading = nil
        }
        if let reading {
            sampled.cache.quick.viewReadOnly = reading.viewReadOnly
            let same = reading.statistics == sampled.cache.quick.statistics
            sampled.cache.quick.statistics = reading.statistics
            let noNews = shared.withLock { state -> Bool in
                guard state.hasSampled, state.publisher.acceptFigures(reading.statistics, monotonicNanoseconds: now) else { return false }
                finish(&state, now: now, quiet: same)
                return true
            }
            if noNews { return }
        }
        var cache = sampled.cache
        defer { sampled.cache = cache }
        var sample: Sample
        if let reading, let resolution = cache.resolution {
            // News, from a reading that showed the path where it was: its figures are the
            // sample's (a disk in use: every sample), without a stat and statvfs more.
            sample = PathSampler.measure(resolution, at: WallClock.now()) { _ throws(SystemError) in reading.statistics }
        } else {
            if cache.resolution == nil { cache.quick.resolvedAt = now }
            sample = cache.fullSample(path)
            cache.resolutionChanged(path: path)
        }
        sample = cache.btrfs.annotate(sample, device: cache.resolution?.device)
        if cache.probe == nil { sample = cache.quota.annotate(sample, btrfs: cache.btrfs.directory, now: now) }
        cache.quick.identifier = nil
        // Through a probe, the figures of the next sample come with the next full one: no
        // statvfs is made here (the quick check needs the identifier).
        if case .measured(let measurement) = sample, cache.resolution != nil, cache.probe == nil {
            // The identifier that goes with these figures: the reading above when it saw
            // them too, else one more statvfs (the first sample, or the figures moved
            // between the two calls).
            if let reading, reading.statistics == measurement.stats {
                cache.quick.identifier = reading.identifier
                cache.quick.viewReadOnly = reading.viewReadOnly
            } else if let again = try? cache.read(sampled.cPath, cache.quick.readOnly), again.statistics == measurement.stats {
                cache.quick.identifier = again.identifier
                cache.quick.viewReadOnly = again.viewReadOnly
            }
            cache.quick.statistics = measurement.stats
        }
        // The detector has the quick reading's time already: the full sample goes with it.
        if reading == nil { now = MonotonicClock.nanoseconds() }
        let news = shared.withLock { state -> Bool in
            finish(&state, now: now, quiet: false)
            let first = !state.hasSampled
            state.hasSampled = true
            // Every sample feeds the fast-fill detector; only news wakes the owner.
            guard state.publisher.accept(sample, monotonicNanoseconds: now) != .noData, let published = state.publisher.current else { return first }
            state.published.append(published)
            return true
        }
        if news { sampled.wake.signal() }
    }
}
