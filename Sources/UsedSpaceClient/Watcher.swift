import Glibc
import UsedSpaceCore
import UsedSpaceSystem

/// `usedspace watch`: one poll loop over the daemon subscription (or the in-process
/// sampler), the bar's click events on stdin, and SIGUSR1/SIGUSR2. It never blocks on
/// anything but poll, so the bar always gets an answer.
final class Watcher {
    /// How long to wait for the daemon's first answer before sampling here instead.
    static let daemonAnswerTimeout: UInt64 = 1_000_000_000
    static let reconnectDelays: [UInt64] = [100, 200, 400, 800, 1600, 2000].map { $0 * 1_000_000 }

    private let options: WatchOptions
    private let bar: BarOptions
    private let path: String
    private let requestedPath: String?
    private var output: WatchOutput
    private var snapshot: Snapshot?
    private var severity = Severity.normal
    private var expanded: Bool
    private var link: DaemonLink?
    private var reconnectAt: UInt64?
    private var reconnectAttempt = 0
    private var daemonDeclined = false
    private var direct: DirectSampling?
    /// While sampling here, when to look for a daemon again.
    private var nextDaemonProbe: UInt64 = 0
    private var stdinOpen: Bool
    private var clicks = ClickEventDecoder()
    private let signals: SignalDescriptor

    init(options: WatchOptions, bar: BarOptions, path: String, requestedPath: String?) throws(SystemError) {
        self.options = options
        self.bar = bar
        self.path = path
        self.requestedPath = requestedPath
        output = WatchOutput(format: options.format)
        expanded = options.expanded
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

    // MARK: - One turn of the loop

    /// Waits for the next event and handles it; false when the bar has gone away.
    private func step() -> Bool {
        var descriptors: [pollfd] = [pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0)]
        if stdinOpen { descriptors.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
        if let link { descriptors.append(pollfd(fd: link.descriptor, events: Int16(POLLIN), revents: 0)) }
        if let direct { descriptors.append(pollfd(fd: direct.wake.descriptor, events: Int16(POLLIN), revents: 0)) }
        let now = WallClock.monotonicNanoseconds()
        let timeout = deadline().map { $0 > now ? Int32(min(($0 - now) / 1_000_000 + 1, 60_000)) : 0 } ?? -1
        let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
        if ready < 0 && errno != EINTR { return false }
        let after = WallClock.monotonicNanoseconds()
        for entry in descriptors where entry.revents != 0 {
            switch entry.fd {
            case signals.descriptor:
                for signal in signals.take() {
                    if signal == SignalNumber.userDefined1 { guard toggleDetails() else { return false } }
                    if signal == SignalNumber.userDefined2 { runRightClickCommand() }
                }
            case STDIN_FILENO:
                guard readClicks() else { return false }
            case link?.descriptor:
                guard handleDaemon(now: after) else { return false }
            case direct?.wake.descriptor:
                if let published = direct?.collect() { guard show(published) else { return false } }
            default:
                break
            }
        }
        return handleTimers(now: after)
    }

    private func deadline() -> UInt64? {
        var deadlines: [UInt64] = []
        if let reconnectAt { deadlines.append(reconnectAt) }
        if let direct {
            deadlines.append(direct.nextDeadline)
            if !options.noDaemon && !daemonDeclined { deadlines.append(nextDaemonProbe) }
        }
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
        if let direct {
            // While sampling here, look for a daemon at every interval (it may have started).
            if !options.noDaemon, !daemonDeclined, now >= nextDaemonProbe {
                nextDaemonProbe = now + options.intervalMicroseconds * 1000
                if connect(now: now) {
                    self.direct = nil
                    return true
                }
            }
            if let published = direct.tick(now: now) { return show(published) }
        }
        return true
    }

    // MARK: - Daemon

    private func connect(now: UInt64) -> Bool {
        guard !options.noDaemon, let socket = DaemonConnection.socketPath else { return false }
        let view = ViewRequest(format: .snapshot, details: false, path: requestedPath)
        guard let link = DaemonLink(socket: socket, view: view, now: now) else { return false }
        self.link = link
        return true
    }

    private func handleDaemon(now: UInt64) -> Bool {
        guard let link else { return true }
        for event in link.read() {
            switch event {
            case .snapshot(let snapshot):
                reconnectAttempt = 0
                direct = nil
                guard show(snapshot) else { return false }
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
                    if var stale = snapshot, stale.state == .fresh {
                        stale.state = .stale
                        stale.error = "the daemon stopped answering; reconnecting"
                        return show(stale)
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
        guard direct == nil else { return }
        direct = try? DirectSampling(path: path, intervalMicroseconds: options.intervalMicroseconds,
                                     timeoutMicroseconds: options.timeoutMicroseconds, now: now)
        nextDaemonProbe = now + options.intervalMicroseconds * 1000
    }

    // MARK: - Showing and clicking

    private func show(_ new: Snapshot) -> Bool {
        snapshot = new
        severity = bar.severity.severity(of: new.stats, previous: severity)
        return output.show(new, bar: bar, severity: severity, expanded: expanded)
    }

    private func toggleDetails() -> Bool {
        expanded.toggle()
        guard let snapshot else { return true }
        return output.show(snapshot, bar: bar, severity: severity, expanded: expanded)
    }

    private func readClicks() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 8192)
        let result = try? Descriptor.read(STDIN_FILENO, into: &chunk)
        switch result {
        case .data(let count):
            for event in clicks.feed(chunk[0..<count]) {
                // i3bar names the block; another program's blocks are not ours to act on.
                if options.format == .i3bar, let instance = event.instance, instance != snapshot?.path, instance != path { continue }
                switch event.button {
                case 1: guard toggleDetails() else { return false }
                case 3: runRightClickCommand()
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

    private func runRightClickCommand() {
        guard let command = bar.rightClickCommand else { return }
        var environment = ["USEDSPACE_PATH": snapshot?.path ?? path]
        if let mountPoint = snapshot?.mountPoint { environment["USEDSPACE_MOUNTPOINT"] = mountPoint }
        _ = try? DetachedCommand.run(command, extraEnvironment: environment)
    }
}
