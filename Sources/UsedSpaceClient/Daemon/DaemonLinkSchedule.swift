/// When `watch` talks to the daemon and when it samples by itself, as a state machine driven
/// by what happens and the time it happens at (monotonic nanoseconds, passed in, so that it
/// is tested without a daemon or a clock):
///
/// - after subscribing, the daemon has `answerTimeout` to answer, or `watch` samples here
///   (a socket that accepts but where nobody answers: a stopped daemon, or one restarting
///   slowly), and still takes the answer whenever it comes: the bar follows the daemon
///   the moment it answers, not one interval later;
/// - a daemon that answered and then went away (a restart) is reconnected to at once and
///   then more slowly (`reconnectDelays`), the numbers marked stale meanwhile; after the
///   last delay, `watch` samples here;
/// - while sampling here, it looks for a daemon again every interval (it may have started),
///   unless the daemon said it does not watch the path, or there must be no daemon.
struct DaemonLinkSchedule: Equatable {
    enum Phase: Equatable {
        /// Before the first attempt.
        case starting
        /// Subscribed at `since`, no answer yet.
        case awaitingAnswer(since: UInt64)
        /// Subscribed, and no answer within `answerTimeout`: sampling here meanwhile, the
        /// subscription kept open for the answer.
        case awaitingLateAnswer
        case subscribed
        /// The `attempt`-th connection attempt (from 1) since the daemon went away, due `at`.
        case reconnecting(attempt: Int, at: UInt64)
        /// Sampling here; nil: for good (no daemon wanted, or it declined the path).
        case sampling(nextProbe: UInt64?)
    }

    enum Action: Equatable {
        case connect
        case sampleHere
    }

    static let answerTimeout: UInt64 = 1_000_000_000
    static let reconnectDelays: [UInt64] = [100, 200, 400, 800, 1600, 2000].map { $0 * 1_000_000 }

    private(set) var phase: Phase
    let intervalNanoseconds: UInt64

    /// `daemonWanted` false: sample here, for good (the caller does so at once).
    init(daemonWanted: Bool, intervalNanoseconds: UInt64) {
        self.intervalNanoseconds = intervalNanoseconds
        phase = daemonWanted ? .starting : .sampling(nextProbe: nil)
    }

    /// A subscription was sent.
    mutating func subscribed(at now: UInt64) {
        phase = .awaitingAnswer(since: now)
    }

    /// Connecting failed (no socket, refused): keep trying while reconnecting, else sample.
    mutating func connectFailed(at now: UInt64) -> Action? {
        switch phase {
        case .reconnecting(let attempt, _) where attempt < Self.reconnectDelays.count:
            phase = .reconnecting(attempt: attempt + 1, at: now + Self.reconnectDelays[attempt])
            return nil
        case .sampling(let probe):
            phase = .sampling(nextProbe: probe.map { _ in now + intervalNanoseconds })
            return nil
        default:
            return startSampling(at: now)
        }
    }

    /// The daemon answered (or sent an update).
    mutating func answered() {
        phase = .subscribed
    }

    /// The daemon refused the subscription; `forGood` when it does not watch the path.
    mutating func refused(at now: UInt64, forGood: Bool) -> Action {
        phase = .sampling(nextProbe: forGood ? nil : now + intervalNanoseconds)
        return .sampleHere
    }

    /// The connection closed. A daemon that had answered is reconnected to (true: mark the
    /// numbers stale); so is one that was awaited while sampling here (it was stopping, a
    /// restart: the next one is close behind), sampling on meanwhile. One that never
    /// answered in time is otherwise given up on for this interval.
    mutating func closed(at now: UInt64) -> (markStale: Bool, action: Action?) {
        switch phase {
        case .subscribed:
            phase = .reconnecting(attempt: 1, at: now + Self.reconnectDelays[0])
            return (true, nil)
        case .awaitingLateAnswer:
            phase = .reconnecting(attempt: 1, at: now + Self.reconnectDelays[0])
            return (false, nil)
        default:
            return (false, startSampling(at: now))
        }
    }

    /// Sampling here while the subscription stays open for a late answer.
    var awaitsLateAnswer: Bool { phase == .awaitingLateAnswer }

    /// When `due` must next be called; nil: only events move it on.
    var deadline: UInt64? {
        switch phase {
        case .awaitingAnswer(let since): return since + Self.answerTimeout
        case .starting, .subscribed, .awaitingLateAnswer: return nil
        case .reconnecting(_, let at): return at
        case .sampling(let probe): return probe
        }
    }

    /// What is due at `now`.
    mutating func due(at now: UInt64) -> Action? {
        guard let deadline, now >= deadline else { return nil }
        switch phase {
        case .awaitingAnswer:
            phase = .awaitingLateAnswer
            return .sampleHere
        case .reconnecting, .sampling:
            return .connect
        case .starting, .subscribed, .awaitingLateAnswer:
            return nil
        }
    }

    private mutating func startSampling(at now: UInt64) -> Action {
        phase = .sampling(nextProbe: now + intervalNanoseconds)
        return .sampleHere
    }
}
