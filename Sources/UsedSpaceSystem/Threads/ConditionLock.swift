import CLinux

/// State shared with a thread that sleeps until the state changes or a deadline passes: a
/// pthread mutex and condition variable, allocated once on the heap (pthread objects must
/// never move, which a Swift stored property may), waiting on CLOCK_MONOTONIC.
///
/// (The standard library's `Synchronization.Mutex` has no condition variable to wait on.)
///
/// Given a SleepTimer, the one waiting thread sleeps on it instead of the condition
/// variable: for a thread that sleeps to a deadline every interval (SleepTimer says why).
public final class ConditionLock<State>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State
    private let sleepTimer: SleepTimer?
    /// The waiting thread sleeps on `sleepTimer` (under the lock).
    private var timerSleeping = false

    public init(_ state: State, sleepTimer: SleepTimer? = nil) {
        self.state = state
        self.sleepTimer = sleepTimer
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with the lock held. Waiting threads are not woken: use this to read, or to
    /// change what no thread waits for (a woken thread that finds nothing to do is a wakeup
    /// for nothing: an idle daemon counts those).
    public func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }

    /// Runs `body` with the lock held, then wakes the waiting threads: for a change that one
    /// of them may be waiting for (work queued, a stop, a new schedule).
    public func update<Result>(_ body: (inout State) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            if let sleepTimer {
                if timerSleeping { sleepTimer.wake() }
            } else {
                pthread_cond_broadcast(condition)
            }
            pthread_mutex_unlock(mutex)
        }
        return body(&state)
    }

    /// What a waiting thread decides each time it looks at the state.
    public enum Decision<Result> {
        /// Stop waiting with this result.
        case done(Result)
        /// Sleep until the state changes, or until this CLOCK_MONOTONIC time in nanoseconds
        /// (nil: no time limit); then look again.
        case sleep(until: UInt64?)
    }

    /// Waits, with the lock held while `decide` runs, until it says done.
    public func wait<Result>(_ decide: (inout State) -> Decision<Result>) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            switch decide(&state) {
            case .done(let result):
                return result
            case .sleep(until: let deadline) where sleepTimer != nil:
                // Armed under the lock: an update from now on re-arms it to end the sleep.
                sleepTimer?.arm(at: deadline)
                timerSleeping = true
                pthread_mutex_unlock(mutex)
                sleepTimer?.sleep()
                pthread_mutex_lock(mutex)
                timerSleeping = false
            case .sleep(until: nil):
                pthread_cond_wait(condition, mutex)
            case .sleep(until: let deadline?):
                var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                pthread_cond_timedwait(condition, mutex, &time)
            }
        }
    }
}
