import Glibc
import UsedSpaceCore
import UsedSpaceSystem

/// `usedspace watch`: one poll loop over the daemon subscription (or the in-process
/// samplers), the bar's click events on stdin, and SIGUSR1/SIGUSR2. It never blocks on
/// anything but poll, so the bar always gets an answer.
final class Watcher {
    /// How long to wait for the daemon's first answer before sampling here instead.
    static let daemonAnswerTimeout: UInt64 = 1_000_000_000
    static let reconnectDelays: [UInt64] = [100, 200, 400, 800, 1600, 2000].map { $0 * 1_000_000 }

    /// One watched filesystem and how it is shown.
    final class Target {
        /// As given (or from the configuration), `~` expanded.
        let path: String
        /// The canonical path, to match the daemon's snapshots; nil when unknown.
        var canonical: String?
        var snapshot: Snapshot?
        var severity = Severity.normal
        var expanded: Bool
        var direct: DirectSampling?

        init(path: String, canonical: String?, expanded: Bool) {
            self.path = path
            self.canonical = canonical
            self.expanded = expanded
        }

        func matches(_ path: String) -> Bool { path == self.path || path == canonical || path == snapshot?.path }
    }

    private let options: WatchOptions
    private let bar: BarOptions
    /// Every path the daemon watches (`--all`) rather than one.
    private let all: Bool
    private var targets: [Target]
    private var output: WatchOutput
    private var link: DaemonLink?
    private var reconnectAt: UInt64?
    private var reconnectAttempt = 0
    private var daemonDeclined = false
    /// While sampling here, when to look for a daemon again.
    private var nextDaemonProbe: UInt64 = 0
    private var stdinOpen: Bool
    private var clicks = ClickEventDecoder()
    private let signals: SignalDescriptor

    init(options: WatchOptions, bar: BarOptions, targets: [Target], all: Bool) throws(SystemError) {
        self.options = options
        self.bar = bar
        self.targets = targets
        self.all = all
        output = WatchOutput(format: options.format)
        stdinOpen = options.format == .i3bar || options.format == .i3blocks
        signals = try SignalDescriptor([SignalNumber.userDefined1, SignalNumber.userDefined2])
    }

    func run() -> Int32 {
        DetachedCommand.reapChildrenAutomatically()
        guard output.start() else { return ExitStatus.success }
        let now = WallClock.monotonicNanoseconds()
        if options.noDaemon || !connect(now: now) { startDirect(now: now) }
        while true {
            guard step() else { return ExitStatus.success }
        }
    }

    private var sampling: Bool { targets.contains { $0.direct != nil } }

    // MARK: - One turn of the loop

    /// Waits for the next event and handles it; false when the bar has gone away.
    private func step() -> Bool {
        var descriptors: [pollfd] = [pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0)]
        if stdinOpen { descriptors.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
        if let link { descriptors.append(pollfd(fd: link.descriptor, events: Int16(POLLIN), revents: 0)) }
        for target in targets {
            if let direct = target.direct { descriptors.append(pollfd(fd: direct.wake.descriptor, events: Int16(POLLIN), revents: 0)) }
        }
        let now = WallClock.monotonicNanoseconds()
        let timeout = deadline().map { $0 > now ? Int32(min(($0 - now) / 1_000_000 + 1, 60_000)) : 0 } ?? -1
        let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
        if ready < 0 && errno != EINTR { return false }
        let after = WallClock.monotonicNanoseconds()
        for entry in descriptors where entry.revents != 0 {
            if entry.fd == signals.descriptor {
                for signal in signals.take() {
                    if signal == SignalNumber.userDefined1 { guard toggleDetails(of: nil) else { return false } }
                    if signal == SignalNumber.userDefined2 { runRightClickCommand(for: targets.first) }
                }
            } else if entry.fd == STDIN_FILENO {
                guard readClicks() else { return false }
            } else if entry.fd == link?.descriptor {
                guard handleDaemon(now: after) else { return false }
            } else if let target = targets.first(where: { $0.direct?.wake.descriptor == entry.fd }) {
                if let published = target.direct?.collect() { guard show(published, for: target) else { return false } }
            }
        }
        return handleTimers(now: after)
    }

    private func deadline() -> UInt64? {
        var deadlines: [UInt64] = targets.compactMap { $0.direct?.nextDeadline }
        if let reconnectAt { deadlines.append(reconnectAt) }
        if sampling && !options.noDaemon && !daemonDeclined { deadlines.append(nextDaemonProbe) }
        if let link, !link.answered { deadlines.append(link.openedAt + Self.daemonAnswerTimeout) }
        return deadlines.min()
    }

    private func handleTimers(now: UInt64) -> Bool {
        if let link, !link.answered, now >= link.openedAt + Self.daemonAnswerTimeout {
            // The socket accepted but nobody answers (a stopped daemon): sample here.
            self.link = nil
            startDirect(now: now)
        }
        if let reconnectAt, now >= reconnectAt {
            self.reconnectAt = nil
            if !connect(now: now) {
                reconnectAttempt += 1
                if reconnectAttempt < Self.reconnectDelays.count {
                    self.reconnectAt = now + Self.reconnectDelays[reconnectAttempt]
                } else {
                    startDirect(now: now)
                }
            }
        }
        if sampling {
            // While sampling here, look for a daemon at every interval (it may have started).
            if !options.noDaemon, !daemonDeclined, now >= nextDaemonProbe {
                nextDaemonProbe = now + options.intervalMicroseconds * 1000
                if connect(now: now) {
                    for target in targets { target.direct = nil }
                    return true
                }
            }
            for target in targets {
                if let published = target.direct?.tick(now: now) { guard show(published, for: target) else { return false } }
            }
        }
        return true
    }

    // MARK: - Daemon

    private func connect(now: UInt64) -> Bool {
        guard !options.noDaemon, let socket = DaemonConnection.socketPath else { return false }
        let view = ViewRequest(format: .snapshot, details: false, path: all ? nil : targets.first?.canonical, all: all)
        guard let link = DaemonLink(socket: socket, view: view, now: now) else { return false }
        self.link = link
        return true
    }

    private func handleDaemon(now: UInt64) -> Bool {
        guard let link else { return true }
        for event in link.read() {
            switch event {
            case .snapshots(let snapshots, let isAnswer):
                reconnectAttempt = 0
                if all && isAnswer {
                    // All: the daemon's paths, in its order, are what is shown.
                    targets = snapshots.map { snapshot in
                        let target = targets.first { $0.matches(snapshot.path) }
                            ?? Target(path: snapshot.path, canonical: snapshot.path, expanded: options.expanded)
                        target.direct = nil
                        return target
                    }
                }
                for snapshot in snapshots {
                    // One path: the daemon answers for it.
                    guard let target = all ? targets.first(where: { $0.matches(snapshot.path) }) : targets.first else { continue }
                    target.direct = nil
                    target.snapshot = snapshot
                    target.severity = bar.severity.severity(of: snapshot.stats, previous: target.severity)
                }
                // JSON writes each snapshot; the bars draw the whole state once (repeats are skipped).
                for snapshot in snapshots { guard render(changed: snapshot) else { return false } }
            case .refused(let code, _):
                // The daemon watches other paths; this one is sampled here from now on.
                self.link = nil
                if code == "not-watched" { daemonDeclined = true }
                startDirect(now: now)
                return true
            case .closed:
                self.link = nil
                if link.answered {
                    // The daemon went away (a restart): keep the numbers, marked stale, and
                    // reconnect at once and then more slowly.
                    reconnectAttempt = 0
                    reconnectAt = now + Self.reconnectDelays[0]
                    for target in targets {
                        if var stale = target.snapshot, stale.state == .fresh {
                            stale.state = .stale
                            stale.error = "the daemon stopped answering; reconnecting"
                            guard show(stale, for: target) else { return false }
                        }
                    }
                } else {
                    startDirect(now: now)
                }
                return true
            }
        }
        return true
    }

    // MARK: - In-process sampling

    private func startDirect(now: UInt64) {
        for target in targets where target.direct == nil {
            target.direct = try? DirectSampling(path: target.path, intervalMicroseconds: options.intervalMicroseconds,
                                                timeoutMicroseconds: options.timeoutMicroseconds, now: now)
        }
        nextDaemonProbe = now + options.intervalMicroseconds * 1000
    }

    // MARK: - Showing and clicking

    private func show(_ new: Snapshot, for target: Target) -> Bool {
        target.snapshot = new
        target.severity = bar.severity.severity(of: new.stats, previous: target.severity)
        return render(changed: new)
    }

    private func render(changed: Snapshot?) -> Bool {
        let items = targets.compactMap { target in
            target.snapshot.map { WatchOutput.Item(snapshot: $0, severity: target.severity, expanded: target.expanded) }
        }
        return output.show(items, changed: changed, bar: bar)
    }

    /// Toggles one filesystem's details, or (nil) all of them together.
    private func toggleDetails(of target: Target?) -> Bool {
        let affected = target.map { [$0] } ?? targets
        let expand = !(affected.first?.expanded ?? false)
        for each in affected { each.expanded = expand }
        return render(changed: nil)
    }

    private func readClicks() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 8192)
        let result = try? Descriptor.read(STDIN_FILENO, into: &chunk)
        switch result {
        case .data(let count):
            for event in clicks.feed(chunk[0..<count]) {
                // i3bar names the block (instance: its path); i3blocks names its own.
                var target: Target?
                if options.format == .i3bar, let instance = event.instance {
                    guard let clicked = targets.first(where: { $0.matches(instance) }) else { continue }
                    target = clicked
                }
                switch event.button {
                case 1: guard toggleDetails(of: target) else { return false }
                case 3: runRightClickCommand(for: target ?? targets.first)
                default: break
                }
            }
        case .wouldBlock:
            break
        case .endOfFile, nil:
            // The bar closed our stdin; it may still read our stdout.
            stdinOpen = false
        }
        return true
    }

    private func runRightClickCommand(for target: Target?) {
        guard let command = bar.rightClickCommand, let target else { return }
        var environment = ["USEDSPACE_PATH": target.snapshot?.path ?? target.path]
        if let mountPoint = target.snapshot?.mountPoint { environment["USEDSPACE_MOUNTPOINT"] = mountPoint }
        _ = try? DetachedCommand.run(command, extraEnvironment: environment)
    }
}
