import CLinux
import UsedSpaceCore

/// Samples a path in the calling thread: resolve it, find its mount, `statvfs` it. What a
/// SamplingThread runs at every interval, and a IsolatedSample's child once. Any of
/// these calls can block for as long as the path's filesystem does.
public enum PathSampler {
    /// A path resolved to its canonical form and its mount, and the identity (device and
    /// inode) it had then: as long as `stat` of the path still gives that identity, the
    /// resolution holds and sampling is one statvfs.
    public struct Resolution: Equatable, Sendable {
        public var canonicalPath: String
        /// nil when the mount table does not show the path's mount (a bare chroot, a table
        /// that cannot be read): statvfs answers all the same, and the mount point and type
        /// are unknown, as df's `-`.
        public var mount: MountEntry?
        public var device: (major: UInt32, minor: UInt32)
        public var inode: UInt64

        public static func == (lhs: Resolution, rhs: Resolution) -> Bool {
            lhs.canonicalPath == rhs.canonicalPath && lhs.mount == rhs.mount && lhs.device == rhs.device && lhs.inode == rhs.inode
        }

        /// Whether `status` (of the same path, now) is still what was resolved.
        func holds(for status: FileStatus) -> Bool {
            status.deviceMajor == device.major && status.deviceMinor == device.minor && status.inode == inode
        }
    }

    public static func sample(_ path: String) -> Sample {
        sample(path, mounts: { () throws(FileReadError) in try MountTable.read() })
    }

    /// With the mount table already read (`mounts` is called only when needed).
    public static func sample(_ path: String, mounts: () throws(FileReadError) -> [MountEntry]) -> Sample {
        switch resolve(path, mounts: mounts) {
        case .failure(let failed): return failed.sample
        case .success(let resolution): return measure(resolution, at: WallClock.now())
        }
    }

    /// Samples `path`, reusing `cached` when the path still leads to the same place; updates
    /// `cached`. What a sampling thread calls for a full sample: a stat and a statvfs.
    public static func sample(_ path: String, reusing cached: inout Resolution?) -> Sample {
        func measured(_ resolution: Resolution) -> Sample {
            measure(resolution, at: WallClock.now())
        }
        if let resolution = cached {
            guard let status = try? FileStatus.of(path), resolution.holds(for: status) else {
                cached = nil
                return sample(path, reusing: &cached)
            }
            let sample = measured(resolution)
            if case .failed = sample { cached = nil }
            return sample
        }
        switch resolve(path) {
        case .failure(let failed):
            return failed.sample
        case .success(let resolution):
            cached = resolution
            return measured(resolution)
        }
    }

    /// Samples `path` from a probe's answer (FilesystemProbe: the filesystem's calls made in
    /// a child), reusing `cached` while the answer is of the same place; updates `cached`.
    static func sample(_ path: String, probe: FilesystemProbe, reusing cached: inout Resolution?) -> Sample {
        let time = WallClock.now()
        let answer: FilesystemProbe.Answer
        do {
            answer = try probe.sample(readOnly: cached?.mount?.readOnly ?? false)
        } catch {
            cached = nil
            return .failed(pathError(error, path: path), path: path, mountPoint: nil, fileSystemType: nil, at: time)
        }
        if let resolution = cached, resolution.canonicalPath == answer.canonicalPath, resolution.device == (answer.deviceMajor, answer.deviceMinor),
           resolution.inode == answer.inode {
            return measure(resolution, at: time) { _ throws(SystemError) in answer.reading.statistics }
        }
        cached = nil
        let mount = (try? MountTable.read()).flatMap {
            MountLocator.mount(containing: answer.canonicalPath, in: $0, device: (answer.deviceMajor, answer.deviceMinor))
        }
        let resolution = Resolution(canonicalPath: answer.canonicalPath, mount: mount, device: (answer.deviceMajor, answer.deviceMinor),
                                    inode: answer.inode)
        cached = resolution
        var statistics = answer.reading.statistics
        statistics.readOnly = mount?.readOnly ?? false
        return measure(resolution, at: time) { _ throws(SystemError) in statistics }
    }

    public struct ResolutionFailure: Error {
        public var sample: Sample
    }

    public static func resolve(_ path: String) -> Result<Resolution, ResolutionFailure> {
        resolve(path, mounts: { () throws(FileReadError) in try MountTable.read() })
    }

    public static func resolve(_ path: String, mounts: () throws(FileReadError) -> [MountEntry]) -> Result<Resolution, ResolutionFailure> {
        let time = WallClock.now()
        func failure(_ error: SampleError, _ path: String) -> Result<Resolution, ResolutionFailure> {
            .failure(ResolutionFailure(sample: .failed(error, path: path, mountPoint: nil, fileSystemType: nil, at: time)))
        }
        let canonicalPath: String
        let status: FileStatus
        do {
            canonicalPath = try PathResolver.canonical(path)
            status = try FileStatus.of(canonicalPath)
        } catch {
            return failure(pathError(error, path: path), path)
        }
        // A table that cannot be read, or does not show the mount (a bare chroot): the mount
        // is unknown, and statvfs still answers, as df answers there.
        let mount = (try? mounts()).flatMap {
            MountLocator.mount(containing: canonicalPath, in: $0, device: (status.deviceMajor, status.deviceMinor))
        }
        return .success(Resolution(canonicalPath: canonicalPath, mount: mount,
                                   device: (status.deviceMajor, status.deviceMinor), inode: status.inode))
    }

    /// The statvfs half of sampling, for a path whose mount is known.
    public static func measure(
        _ resolution: Resolution, at time: Timestamp,
        statistics: ((String) throws(SystemError) -> FilesystemStats)? = nil
    ) -> Sample {
        let canonicalPath = resolution.canonicalPath
        let mount = resolution.mount
        let stats: FilesystemStats
        do {
            if let statistics {
                stats = try statistics(canonicalPath)
            } else {
                // An unknown mount's superblock state is unknown: not read-only.
                stats = try Statvfs.of(canonicalPath, readOnly: mount?.readOnly ?? false)
            }
        } catch {
            return .failed(
                pathError(error, path: canonicalPath), path: canonicalPath,
                mountPoint: mount?.mountPoint, fileSystemType: mount?.fileSystemType, at: time
            )
        }
        let failure: SampleError?
        if stats.totalBlocks == 0 {
            failure = .noBlocks(mountPoint: mount?.mountPoint ?? canonicalPath)
        } else if stats.usableBlocks == 0 {
            failure = .noUsableBlocks(mountPoint: mount?.mountPoint ?? canonicalPath)
        } else {
            failure = nil
        }
        if let failure {
            return .failed(failure, path: canonicalPath, mountPoint: mount?.mountPoint, fileSystemType: mount?.fileSystemType, at: time)
        }
        return .measured(Measurement(
            path: canonicalPath, mountPoint: mount?.mountPoint, fileSystemType: mount?.fileSystemType,
            stats: stats, sampledAt: time
        ))
    }

    static func pathError(_ error: SystemError, path: String) -> SampleError {
        switch error.errno {
        case ENOENT: return .pathNotFound(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path)
        case ENOTDIR: return .notADirectoryComponent(path: path)
        default: return .system(call: error.call, path: path, message: error.message)
        }
    }
}
