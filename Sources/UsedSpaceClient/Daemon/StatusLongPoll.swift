import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// `status --after SEQS`: a long poll for widgets that cannot keep a `watch` running (a
/// Plasma applet's executable data engine runs a command and reads it when it exits). The
/// answer comes at once when it differs from the caller's (other seqs, other paths), and
/// otherwise at the daemon's next publish: on an idle disk the command waits, costing
/// nothing. Without a daemon it answers at once, sampled here (its `source` says so).
enum StatusLongPoll {
    enum Outcome {
        case changed([Snapshot])
        /// No daemon answered, or it went away: the caller samples by itself.
        case noDaemon
        /// Nobody reads the answer any more (the widget is gone).
        case readerGone
    }

    /// "12,7" → [12, 7]; "" → [] (the caller has nothing yet). Seqs are at most 2^53 − 1,
    /// as in the protocol.
    static func parse(_ text: String) -> [UInt64]? {
        guard !text.isEmpty else { return [] }
        var seqs: [UInt64] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let seq = UInt64(part), seq <= (1 << 53) - 1 else { return nil }
            seqs.append(seq)
        }
        return seqs
    }

    static func wait(path: String?, all: Bool, after seqs: [UInt64]) -> Outcome {
        let view = ViewRequest(format: .snapshot, details: false, path: path, all: all)
        guard let socket = DaemonConnection.socketPath, let subscription = DaemonSubscription(socket: socket, view: view) else { return .noDaemon }
        var current: [Snapshot] = []
        var answered = false
        while true {
            // stdout with no events asked for still reports POLLERR once its reader is gone.
            var descriptors = [pollfd(fd: subscription.descriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)]
            if poll(&descriptors, 2, -1) < 0 && clinux_errno() != EINTR { return .noDaemon }
            if descriptors[1].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return .readerGone }
            for event in subscription.read() {
                switch event {
                case .snapshots(let snapshots, let isAnswer):
                    if isAnswer {
                        current = snapshots
                        answered = true
                    } else {
                        merge(snapshots, into: &current)
                    }
                case .refused, .closed:
                    return .noDaemon
                }
            }
            if answered && current.map({ $0.seq }) != seqs { return .changed(current) }
        }
    }

    /// An update replaces its path's snapshot, adds a new path's, and takes out a path
    /// whose watch has ended.
    private static func merge(_ updates: [Snapshot], into current: inout [Snapshot]) {
        for update in updates {
            let index = current.firstIndex { $0.path == update.path }
            if update.watchEnded {
                if let index { current.remove(at: index) }
            } else if let index {
                current[index] = update
            } else {
                current.append(update)
            }
        }
    }
}
