import CLinux
import Glibc
import UsedSpaceCore

/// Samples one path every interval on a thread of its own, and wakes its owner's event loop
/// only when the sample says something new. On a quiet filesystem that means no wakeup of
/// the loop at all: the thread wakes, makes one stat and one statvfs (the path's resolution
/// is kept while its device and inode stay the same), and sleeps again.
///
/// A statvfs that hangs (a dead network mount) blocks only this thread, and no second
/// sample of the path is started meanwhile; the owner sees `runningSince` and decides what a
/// timeout means. Samplers of paths on one filesystem share its statvfs (SharedStatistics):
/// the filesystem is sampled once per interval.
public final class PeriodicSampler: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private let path: String
    private let wake: EventCounter
    private var interval: UInt64
    private var pending: [Sample] = []
    private var lastPosted: Sample?
    private var forcePost = true
    private var sampleRequested = false
    private var running: UInt64?
    private var completed: UInt64 = 0
    private var started = false
    private var stopped = false

    /// `interval` in microseconds.
    public init(path: String, intervalMicroseconds: UInt64, wake: EventCounter) {
        self.path = path
        self.wake = wake
        interval = intervalMicroseconds * 1000
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&condition, &attributes)
        pthread_condattr_destroy(&attributes)
        pthread_mutex_init(&mutex, nil)
    }

    /// Starts the thread; the first sample is taken at once.
    public func start() throws(SystemError) {
        let first = locked { () -> Bool in
            defer { started = true }
            return !started
        }
        guard first else { return }
        try SystemThread.detach { [self] in self.loop() }
    }

    public func setInterval(microseconds: UInt64) {
        locked {
            interval = microseconds * 1000
            pthread_cond_signal(&condition)
        }
    }

    /// Ends the thread after its current sample (a path no longer watched).
    public func stop() {
        locked {
            stopped = true
            pthread_cond_signal(&condition)
        }
    }

    /// Samples as soon as the thread is free, and posts the result even if nothing changed.
    public func requestSample() {
        locked {
            sampleRequested = true
            forcePost = true
            pthread_cond_signal(&condition)
        }
    }

    /// Posts the next result even if it equals the last posted one (the owner has shown
    /// something else meanwhile, such as a stale mark).
    public func forceNextPost() {
        locked { forcePost = true }
    }

    /// The samples posted since the last call, oldest first.
    public func takeSamples() -> [Sample] {
        locked {
            defer { pending.removeAll() }
            return pending
        }
    }

    /// Monotonic nanoseconds: when the sample now running began (nil when none runs), and
    /// when the last one finished.
    public var activity: (runningSince: UInt64?, lastCompletion: UInt64) {
        locked { (running, completed) }
    }

    private func loop() {
        var resolution: DirectSampler.Resolution?
        var nextTick = WallClock.monotonicNanoseconds()
        var slack: UInt64 = 0
        while true {
            let keepGoing = locked { () -> Bool in
                while !sampleRequested && !stopped {
                    let now = WallClock.monotonicNanoseconds()
                    if now >= nextTick { break }
                    var deadline = timespec(tv_sec: Int(nextTick / 1_000_000_000), tv_nsec: Int(nextTick % 1_000_000_000))
                    pthread_cond_timedwait(&condition, &mutex, &deadline)
                }
                guard !stopped else { return false }
                sampleRequested = false
                running = WallClock.monotonicNanoseconds()
                let wanted = min(interval / 10, 1_000_000_000)
                if wanted != slack {
                    slack = wanted
                    _ = clinux_set_timer_slack(UInt(slack))
                }
                return true
            }
            guard keepGoing else { return }
            let sample = DirectSampler.sample(path, reusing: &resolution, sharedFor: locked { interval / 2 })
            let now = WallClock.monotonicNanoseconds()
            let posted = locked { () -> Bool in
                running = nil
                completed = now
                // The next tick keeps to the schedule unless this sample overran it.
                nextTick = max(nextTick + interval, now)
                guard forcePost || lastPosted.map({ !Self.sameContent($0, sample) }) ?? true else { return false }
                forcePost = false
                lastPosted = sample
                pending.append(sample)
                return true
            }
            if posted { wake.signal() }
        }
    }

    /// Whether two samples say the same, whenever they were taken.
    static func sameContent(_ a: Sample, _ b: Sample) -> Bool {
        switch (a, b) {
        case (.measured(let x), .measured(let y)):
            return x.path == y.path && x.mountPoint == y.mountPoint && x.fileSystemType == y.fileSystemType && x.stats == y.stats
        case (.failed(let e1, let p1, let m1, let t1, _), .failed(let e2, let p2, let m2, let t2, _)):
            return e1 == e2 && p1 == p2 && m1 == m2 && t1 == t2
        default:
            return false
        }
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
