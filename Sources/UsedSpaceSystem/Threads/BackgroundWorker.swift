/// One thread that runs jobs handed to it and hands the results back, waking its owner's
/// loop through an `EventCounter`. While idle it sleeps (no wakeups). A job that blocks
/// forever (a write on a dead network mount) blocks only this thread, and `isBusy` tells
/// the owner not to count on it. When the worker is released the thread ends after its
/// current job.
public final class BackgroundWorker<Job: Sendable, Output: Sendable> {
    struct State {
        var pending: Job?
        var running = false
        var outputs: [Output] = []
        var started = false
        var stopped = false
    }

    /// Shared with the thread, which holds it until it ends (internal: tests watch for that).
    let shared = ConditionLock(State())
    private let work: @Sendable (Job) -> Output
    public let wake: EventCounter

    public init(work: @escaping @Sendable (Job) -> Output) throws(SystemError) {
        self.work = work
        wake = try EventCounter()
    }

    deinit {
        shared.update { $0.stopped = true }
    }

    /// Whether a job is queued or running.
    public var isBusy: Bool {
        shared.withLock { $0.pending != nil || $0.running }
    }

    /// Queues `job`, replacing a queued one that has not started (the newest wins, which is
    /// what a writer of "the latest state" wants). Starts the thread on first use.
    public func submit(_ job: Job) throws(SystemError) {
        let needsThread = shared.update { state -> Bool in
            state.pending = job
            defer { state.started = true }
            return !state.started
        }
        guard needsThread else { return }
        let shared = self.shared, work = self.work, wake = self.wake
        do {
            try WorkerThread.start { Self.run(shared, work, wake) }
        } catch {
            shared.withLock { state in
                state.started = false
                state.pending = nil
            }
            throw error
        }
    }

    /// The results finished since the last call, oldest first.
    public func takeOutputs() -> [Output] {
        wake.drain()
        return shared.withLock { state in
            defer { state.outputs.removeAll() }
            return state.outputs
        }
    }

    private static func run(_ shared: ConditionLock<State>, _ work: (Job) -> Output, _ wake: EventCounter) {
        while true {
            let job: Job? = shared.wait { state in
                if state.stopped { return .done(nil) }
                guard let job = state.pending else { return .sleep(until: nil) }
                state.pending = nil
                state.running = true
                return .done(job)
            }
            guard let job else { return }
            let output = work(job)
            shared.withLock { state in
                state.running = false
                state.outputs.append(output)
            }
            wake.signal()
        }
    }
}
