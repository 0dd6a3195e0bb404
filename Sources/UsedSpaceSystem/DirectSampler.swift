import Glibc
import UsedSpaceCore

/// Samples a path in this process: resolve it, find its mount, `statvfs` it. This is what
/// the client does when no daemon answers, and what the daemon's sampling thread runs.
public enum DirectSampler {
    public static let mountTablePath = "/proc/self/mountinfo"

    public static func sample(_ path: String, mountTable: String = mountTablePath) -> Sample {
        let time = WallClock.now()
        let canonicalPath: String
        let status: FileStatus
        do {
            canonicalPath = try PathResolver.canonical(path)
            status = try FileStatus.of(canonicalPath)
        } catch {
            return .failed(pathError(error, path: path), path: path, mountPoint: nil, fileSystemType: nil, at: time)
        }
        let entries: [MountEntry]
        do {
            entries = MountInfoParser.parse(bytes: try FileContents.read(mountTable))
        } catch {
            let failure = SampleError.system(call: "read", path: mountTable, message: error.description)
            return .failed(failure, path: canonicalPath, mountPoint: nil, fileSystemType: nil, at: time)
        }
        guard let mount = MountLocator.mount(
            containing: canonicalPath, in: entries, device: (status.deviceMajor, status.deviceMinor)
        ) else {
            return .failed(.noMountFound(path: canonicalPath), path: canonicalPath, mountPoint: nil, fileSystemType: nil, at: time)
        }
        return measure(canonicalPath, mount: mount, at: time)
    }

    /// The statvfs half of sampling, for a path whose mount is already known.
    public static func measure(_ canonicalPath: String, mount: MountEntry, at time: Timestamp) -> Sample {
        let stats: FilesystemStats
        do {
            stats = try FileSystemStatistics.of(canonicalPath)
        } catch {
            return .failed(
                pathError(error, path: canonicalPath), path: canonicalPath,
                mountPoint: mount.mountPoint, fileSystemType: mount.fileSystemType, at: time
            )
        }
        let failure: SampleError?
        if stats.totalBlocks == 0 {
            failure = .noBlocks(mountPoint: mount.mountPoint)
        } else if stats.usableBlocks == 0 {
            failure = .noUsableBlocks(mountPoint: mount.mountPoint)
        } else {
            failure = nil
        }
        if let failure {
            return .failed(failure, path: canonicalPath, mountPoint: mount.mountPoint, fileSystemType: mount.fileSystemType, at: time)
        }
        return .measured(Measurement(
            path: canonicalPath, mountPoint: mount.mountPoint, fileSystemType: mount.fileSystemType,
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
