import Glibc
import UsedSpaceCore

/// statvfs results shared between sampling threads by filesystem (device), so that paths on
/// the same filesystem are sampled once per interval: the first thread to ask makes the
/// call, a thread asking meanwhile waits for that call, and a thread asking shortly after
/// gets its result.
final class SharedStatistics: Sendable {
    static let shared = SharedStatistics()

    private struct State {
        var results: [UInt64: (time: UInt64, result: Result<FilesystemStats, SystemError>)] = [:]
        var inProgress: Set<UInt64> = []
    }

    private let state = ConditionLock(State())

    /// statvfs of `path`, on the filesystem `device`, reusing a result of another path on it
    /// taken less than `maximumAge` nanoseconds ago.
    func statistics(of path: String, device: (major: UInt32, minor: UInt32), readOnly: Bool, maximumAge: UInt64) throws(SystemError) -> FilesystemStats {
        let key = UInt64(device.major) << 32 | UInt64(device.minor)
        let cached: Result<FilesystemStats, SystemError>? = state.wait { state in
            if let cached = state.results[key], MonotonicClock.nanoseconds() - cached.time < maximumAge {
                return .done(cached.result)
            }
            if state.inProgress.contains(key) { return .sleep(until: nil) }
            state.inProgress.insert(key)
            return .done(nil)
        }
        if let cached { return try cached.get() }
        let result = Result { () throws(SystemError) in try FileSystemStatistics.of(path, readOnly: readOnly) }
        state.update { state in
            state.inProgress.remove(key)
            state.results[key] = (MonotonicClock.nanoseconds(), result)
        }
        return try result.get()
    }
}
