import Glibc
import UsedSpaceCore

/// statvfs results shared between sampling threads by filesystem (device), so that paths on
/// the same filesystem are sampled once per interval: the first thread to ask makes the
/// call, a thread asking meanwhile waits for that call, and a thread asking shortly after
/// gets its result.
final class SharedStatistics: @unchecked Sendable {
    static let shared = SharedStatistics()

    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var results: [UInt64: (time: UInt64, result: Result<FilesystemStats, SystemError>)] = [:]
    private var inProgress: Set<UInt64> = []

    private init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    /// statvfs of `path`, on the filesystem `device`, reusing a result of another path on it
    /// taken less than `maximumAge` nanoseconds ago.
    func statistics(of path: String, device: (major: UInt32, minor: UInt32), maximumAge: UInt64) throws(SystemError) -> FilesystemStats {
        let key = UInt64(device.major) << 32 | UInt64(device.minor)
        pthread_mutex_lock(&mutex)
        while true {
            if let cached = results[key], WallClock.monotonicNanoseconds() - cached.time < maximumAge {
                pthread_mutex_unlock(&mutex)
                return try cached.result.get()
            }
            guard inProgress.contains(key) else { break }
            pthread_cond_wait(&condition, &mutex)
        }
        inProgress.insert(key)
        pthread_mutex_unlock(&mutex)
        let result = Result { () throws(SystemError) in try FileSystemStatistics.of(path) }
        pthread_mutex_lock(&mutex)
        inProgress.remove(key)
        results[key] = (WallClock.monotonicNanoseconds(), result)
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
        return try result.get()
    }
}
