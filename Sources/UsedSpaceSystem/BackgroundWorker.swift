import Glibc

/// One thread that runs jobs handed to it from the event loop and hands the results back,
/// waking the loop through an `EventCounter`. While idle it sleeps on a condition variable
/// (no wakeups). A job that blocks forever (statvfs of a dead mount) blocks only this thread,
/// and `isBusy` tells the loop not to queue more behind it.
public final class BackgroundWorker<Job: Sendable, Output: Sendable>: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var pending: Job?
    private var running = false
    private var outputs: [Output] = []
    private var started = false
    private let work: @Sendable (Job) -> Output
    private let wake: EventCounter

    public init(wake: EventCounter, work: @escaping @Sendable (Job) -> Output) {
        self.work = work
        self.wake = wake
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    /// Whether a job is queued or running.
    public var isBusy: Bool {
        locked { pending != nil || running }
    }

    /// Queues `job`, replacing a queued one that has not started (the newest wins, which is
    /// what a writer of "the latest state" wants). Starts the thread on first use.
    public func submit(_ job: Job) throws(SystemError) {
        let needsThread = locked { () -> Bool in
            pending = job
            pthread_cond_signal(&condition)
            defer { started = true }
            return !started
        }
        if needsThread {
            do {
                try SystemThread.detach { [self] in self.loop() }
            } catch {
                locked {
                    started = false
                    pending = nil
                }
                throw error
            }
        }
    }

    /// The results finished since the last call, oldest first.
    public func takeOutputs() -> [Output] {
        locked {
            defer { outputs.removeAll() }
            return outputs
        }
    }

    private func loop() {
        while true {
            let job: Job = locked {
                while pending == nil { pthread_cond_wait(&condition, &mutex) }
                defer { pending = nil }
                running = true
                return pending!
            }
            let output = work(job)
            locked {
                running = false
                outputs.append(output)
            }
            wake.signal()
        }
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
