import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// `usedspace watch`: one poll loop over the daemon subscription (or the sampling threads
/// when no daemon answers), i3bar's click events on stdin, `usedspace click` on the control
/// socket, and SIGUSR1/SIGUSR2. It never blocks on anything but poll, and it touches no
/// filesystem itself but the runtime directory (its control socket), so the bar always gets
/// an answer.
final class WatchLoop {
    /// One watched filesystem and how it is shown.
    final class Target {
        /// As given (or from the configuration), `~` expanded.
        let path: String
        /// The canonical path, to match the daemon's snapshots; nil when unknown.
        var canonical: String?
        var snapshot: Snapshot?
        /// The level shown (ShownLevel): the daemon's, or this watch's own judgement, with
        /// its history, where its command line's limits differ or no daemon answers.
        var severity = Severity.normal
        var expanded: Bool
        /// Sampling here, while no daemon serves this path.
        var sampler: SamplingThread?
        /// Who is filling it, looked up here at each update while a fast fill is seen.
        var writers = FillWriterLookup()

        init(path: String, canonical: String?, expanded: Bool) {
            self.path = path
            self.canonical = canonical
            self.expanded = expanded
        }

        func matches(_ path: String) -> Bool { path == self.path || path == canonical || path == snapshot?.path }
    }

    private let options: WatchOptions
    private var profiles: BarProfiles
    private var levels: ShownLevel
    /// The configuration file, when its filesystem did not answer by the deadline (a dead
    /// network home): its settings apply when it does.
    var pendingConfiguration: ClientConfiguration.Pending?
    /// Every path the daemon watches (`--all`) rather than one.
    private let all: Bool
    private let home = TargetPaths.lexicalHome
    private var targets: [Target]
    private var output: WatchOutput
    private var subscription: DaemonSubscription?
    private var schedule: DaemonLinkSchedule
    private var stdinOpen: Bool
    private var clicks = ClickEventDecoder()
    private let signals: SignalDescriptor
    /// Where `usedspace click` sends the clicks of bars that run a command on a click.
    private let control: BlockControl?
    /// Following an i3blocks bar (I3blocksFollow): its exit, and the lock that makes this
    /// the only follower.
    private let follow: I3blocksFollow.Follower?
    /// The daemon's configuration problem last reported on stderr.
    private var reportedProblem: String?
    /// What the client found wrong with the configuration file itself (said at the start).
    var configurationWarning = ConfigurationWarning(ownProblem: nil, readTheDaemonsFile: false)
    /// `--all` with `path = auto`: the mount table, followed while sampling here (the daemon
    /// follows it when it answers).
    private var mounts: FollowedTable?

    struct FollowedTable {
        let table: MountInfoFile
        /// The configured paths (`~` expanded, normalised): their filesystems are not added.
        let explicit: [String]
        /// The mount points added by the rule, shown after the configured paths.
        var automatic: [String]
        /// What is followed, by the rule the daemon follows too.
        var rule = MountFollowing()
        /// When to read the table: 200 ms after the first change, once for a burst.
        var readAt: UInt64?
    }

    /// The bar settings of a configuration, with the command line's options over them.
    static func profiles(_ configuration: Configuration, options: WatchOptions) -> BarProfiles {
        BarProfiles(configuration: options.format.isBar ? configuration : Configuration(), commandLine: options.bar.pairs,
                    home: TargetPaths.lexicalHome)
    }

    /// Which level each filesystem is shown at, by that configuration and the command line.
    static func levels(_ configuration: Configuration, options: WatchOptions) -> ShownLevel {
        ShownLevel(configuration: configuration, commandLine: options.bar.pairs, home: TargetPaths.lexicalHome)
    }

    /// Follows the mount table (`--all` and `path = auto`); `automatic` are the targets that
    /// the rule gave at the start.
    func followMounts(explicit: [String], automatic: [String]) {
        guard let table = try? MountInfoFile() else { return }
        mounts = FollowedTable(table: table, explicit: explicit, automatic: automatic)
    }

    init(options: WatchOptions, profiles: BarProfiles, levels: ShownLevel, targets: [Target], all: Bool) throws(SystemError) {
        self.options = options
        self.profiles = profiles
        self.levels = levels
        self.targets = targets
        self.all = all
        output = WatchOutput(format: options.format)
        // Only i3bar gives the block a stdin of its own with click events. A persistent
        // i3blocks block shares i3blocks' stdin, the clicks of every block: reading it
        // would steal and cut them.
        stdinOpen = options.format == .i3bar
        follow = options.barPID.flatMap { bar in options.signal.flatMap { I3blocksFollow.Follower(bar: bar, signal: $0) } }
        control = options.format.isBar
            ? BlockControl(endpoint: BlockEndpoint(pid: getpid(), name: options.name ?? ProcessEnvironment.value("BLOCK_NAME"),
                                                   output: ProcessEnvironment.value("WAYBAR_OUTPUT_NAME")))
            : nil
        schedule = DaemonLinkSchedule(daemonWanted: !options.noDaemon, intervalNanoseconds: options.intervalMicroseconds * 1000)
        // SIGTERM and its kind end the loop, so that the control socket is removed on the way
        // out (a bar stops its blocks with SIGTERM).
        signals = try SignalDescriptor([SignalNumber.userDefined1, SignalNumber.userDefined2] + SignalNumber.endRequests)
    }

    func run() -> Int32 {
        DetachedCommand.reapChildrenAutomatically()
        // Another follower of this bar runs already (or the bar is gone): nothing to do.
        if options.barPID != nil && follow == nil { return ExitStatus.success }
        guard output.start() else { return ExitStatus.success }
        let now = MonotonicClock.nanoseconds()
        if options.noDaemon {
            startSampling()
        } else {
            connect(now: now)
        }
        while step() {}
        return ExitStatus.success
    }

    // MARK: - One turn of the loop

    /// Waits for the next event and handles it; false when the bar has gone away.
    private func step() -> Bool {
        // stdout with no events asked for: poll still reports POLLERR when the bar, which
        // reads the other end of the pipe, is gone (killed, or its `sh -c` alone was), so the
        // watch ends at once instead of at its next write, hours later on a quiet disk.
        var descriptors: [pollfd] = [pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0),
                                     pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)]
        if stdinOpen { descriptors.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
        if let control { descriptors.append(pollfd(fd: control.descriptor, events: Int16(POLLIN), revents: 0)) }
        if let follow { descriptors.append(pollfd(fd: follow.exitDescriptor, events: Int16(POLLIN), revents: 0)) }
        if let subscription { descriptors.append(pollfd(fd: subscription.descriptor, events: Int16(POLLIN), revents: 0)) }
        for target in targets {
            if let sampler = target.sampler { descriptors.append(pollfd(fd: sampler.wake.descriptor, events: Int16(POLLIN), revents: 0)) }
        }
        if samplesHere, let mounts { descriptors.append(pollfd(fd: mounts.table.descriptor, events: Int16(POLLPRI), revents: 0)) }
        if let late = pendingConfiguration?.descriptor { descriptors.append(pollfd(fd: late, events: Int16(POLLIN), revents: 0)) }
        let now = MonotonicClock.nanoseconds()
        let timeout = deadline().map { $0 > now ? Int32(min(($0 - now) / 1_000_000 + 1, 60_000)) : 0 } ?? -1
        let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
        if ready < 0 && clinux_errno() != EINTR { return false }
        let after = MonotonicClock.nanoseconds()
        for entry in descriptors where entry.revents != 0 {
            if entry.fd == STDOUT_FILENO {
                if entry.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return false }
            } else if entry.fd == signals.descriptor {
                for signal in signals.take() {
                    if SignalNumber.endRequests.contains(signal) { return false }
                    if signal == SignalNumber.userDefined1 { guard toggleDetails(of: nil) else { return false } }
                    if signal == SignalNumber.userDefined2 { runRightClickCommand(for: targets.first) }
                }
            } else if entry.fd == STDIN_FILENO {
                guard readClicks() else { return false }
            } else if entry.fd == follow?.exitDescriptor {
                // The bar is gone, and with it the block this followed.
                return false
            } else if entry.fd == control?.descriptor {
                for button in control?.takeButtons() ?? [] {
                    if button == 1 { guard toggleDetails(of: nil) else { return false } }
                    if button == 3 { runRightClickCommand(for: targets.first) }
                }
            } else if entry.fd == subscription?.descriptor {
                guard handleDaemon(now: after) else { return false }
            } else if let target = targets.first(where: { $0.sampler?.wake.descriptor == entry.fd }) {
                guard collect(target) else { return false }
            } else if entry.fd == mounts?.table.descriptor, mounts?.readAt == nil {
                mounts?.readAt = after + 200_000_000
            } else if entry.fd == pendingConfiguration?.descriptor {
                guard configurationArrived() else { return false }
            }
        }
        return handleTimers(now: after)
    }

    private func deadline() -> UInt64? {
        (targets.compactMap { $0.sampler?.nextTimeoutCheck } + [schedule.deadline, mounts?.readAt].compactMap { $0 }).min()
    }

    private func handleTimers(now: UInt64) -> Bool {
        switch schedule.due(at: now) {
        case .connect?:
            connect(now: now)
        case .sampleHere?:
            // The socket accepted but nobody answers (a stopped daemon, or one restarting
            // slowly): sample here, and take the daemon's answer when it comes.
            startSampling()
        case nil:
            break
        }
        for target in targets {
            if target.sampler?.checkTimeout(now: now) == true { guard collect(target) else { return false } }
        }
        if let readAt = mounts?.readAt, now >= readAt {
            mounts?.readAt = nil
            guard mountsChanged() else { return false }
        }
        return true
    }

    /// As the daemon does, by its rule (MountFollowing): a filesystem mounted gets a block,
    /// sampled here; an unmounted one's ends (JSON: its last snapshot, failed, with
    /// `watch_ended`).
    private func mountsChanged() -> Bool {
        guard samplesHere, var following = mounts, let entries = try? following.table.read() else { return true }
        let (wanted, diff) = following.rule.changes(in: entries, besides: following.explicit, from: following.automatic)
        following.automatic = wanted
        mounts = following
        guard !diff.isEmpty else { return true }
        var ended: [Snapshot] = []
        for path in diff.removed {
            guard let index = targets.firstIndex(where: { $0.path == path }) else { continue }
            let target = targets.remove(at: index)
            if let last = target.sampler?.end(reason: "\(path) was unmounted; no longer watched", unmounted: true) {
                ended.append(last)
            }
        }
        for path in diff.added where !targets.contains(where: { $0.path == path }) {
            targets.append(Target(path: path, canonical: path, expanded: options.expanded))
        }
        // The new ones show at their first sample.
        startSampling()
        for snapshot in ended { guard render(changed: snapshot) else { return false } }
        return true
    }

    /// Applies the configuration file that answered late, if it has; false when the bar
    /// has gone away.
    private func configurationArrived() -> Bool {
        guard let pending = pendingConfiguration, let (configuration, problem) = pending.take() else { return true }
        pendingConfiguration = nil
        StandardStreams.error("usedspace: " + (problem ?? "\(pending.path) answered; its settings apply from now"))
        configurationWarning.ownProblem = problem
        profiles = Self.profiles(configuration, options: options)
        levels = Self.levels(configuration, options: options)
        for target in targets {
            if let snapshot = target.snapshot { target.severity = severity(of: snapshot, for: target) }
        }
        return render(changed: nil)
    }

    // MARK: - Daemon

    /// No daemon answers: this process samples (and follows the mount table) itself.
    private var samplesHere: Bool { subscription == nil || schedule.awaitsLateAnswer }

    private func connect(now: UInt64) {
        let view = ViewRequest(format: .snapshot, details: false, path: all ? nil : targets.first?.canonical, all: all)
        if let socket = DaemonConnection.socketPath, let subscription = DaemonSubscription(socket: socket, view: view) {
            self.subscription = subscription
            schedule.subscribed(at: now)
            // Sampling here stops as soon as a daemon may answer; if it does not, it restarts.
            for target in targets { target.sampler = nil }
        } else if schedule.connectFailed(at: now) == .sampleHere {
            startSampling()
        }
    }

    private func handleDaemon(now: UInt64) -> Bool {
        guard let subscription else { return true }
        for event in subscription.read() {
            switch event {
            case .snapshots(let snapshots, let isAnswer):
                schedule.answered()
                if all && isAnswer {
                    // All: the daemon's paths, in its order, are what is shown.
                    targets = snapshots.map { snapshot in
                        targets.first { $0.matches(snapshot.path) } ?? Target(path: snapshot.path, canonical: snapshot.path, expanded: options.expanded)
                    }
                }
                var named: [Snapshot] = []
                for var snapshot in snapshots {
                    // One path: the daemon answers for it.
                    var found = all ? targets.first(where: { $0.matches(snapshot.path) }) : targets.first
                    if found == nil && all && !snapshot.watchEnded {
                        // All: a filesystem the daemon started watching (path = auto saw it mounted).
                        let added = Target(path: snapshot.path, canonical: snapshot.path, expanded: options.expanded)
                        targets.append(added)
                        found = added
                    }
                    guard let target = found else { named.append(snapshot); continue }
                    target.sampler = nil
                    snapshot = target.writers.named(snapshot)
                    named.append(snapshot)
                    target.snapshot = snapshot
                    target.severity = severity(of: snapshot, for: target)
                }
                // All: the daemon stopped watching it (unmounted); its last snapshot says so
                // in JSON, and the bars drop its block.
                if all { targets.removeAll { $0.snapshot?.watchEnded == true } }
                reportConfigurationProblem(snapshots.lazy.compactMap { $0.configurationProblem }.first)
                // JSON writes each snapshot; the bars draw the whole state once (repeats are skipped).
                for snapshot in named { guard render(changed: snapshot) else { return false } }
            case .refused(let code, _):
                // The daemon watches other paths (for good), or is busy: sample here.
                self.subscription = nil
                _ = schedule.refused(at: now, forGood: code == "not-watched")
                startSampling()
                return true
            case .closed:
                self.subscription = nil
                let (markStale, action) = schedule.closed(at: now)
                if markStale {
                    // The daemon went away (a restart): keep the numbers, marked stale.
                    for target in targets {
                        if var stale = target.snapshot, stale.state == .fresh {
                            stale.state = .stale
                            stale.error = "the daemon stopped answering; reconnecting"
                            guard show(stale, for: target) else { return false }
                        }
                    }
                }
                if action == .sampleHere { startSampling() }
                return true
            }
        }
        return true
    }

    /// On stderr (a bar's log), once per problem: the bar itself shows a mark.
    private func reportConfigurationProblem(_ problem: String?) {
        guard problem != reportedProblem else { return }
        reportedProblem = problem
        guard let problem else { return }
        StandardStreams.error(configurationWarning.laterRefusalLine(problem))
    }

    // MARK: - Sampling here

    private func startSampling() {
        for target in targets where target.sampler == nil {
            let publisher = Publisher(policy: PublishPolicy(), source: .direct)
            guard let sampler = try? SamplingThread(path: target.path, publisher: publisher, intervalMicroseconds: options.intervalMicroseconds,
                                                    timeoutMicroseconds: options.timeoutMicroseconds),
                  (try? sampler.start()) != nil
            else { continue }
            target.sampler = sampler
        }
    }

    private func collect(_ target: Target) -> Bool {
        guard let published = target.sampler?.takePublished() else { return true }
        for snapshot in published {
            if var following = mounts, following.rule.isUnreachable(snapshot, of: target.path, followed: following.automatic) {
                // As the daemon: never shown, and left out until it is unmounted.
                following.automatic.removeAll { $0 == target.path }
                mounts = following
                targets.removeAll { $0 === target }
                return render(changed: nil)
            }
            guard show(snapshot, for: target) else { return false }
        }
        return true
    }

    // MARK: - Showing and clicking

    private func show(_ new: Snapshot, for target: Target) -> Bool {
        let new = target.writers.named(new)
        target.snapshot = new
        target.severity = severity(of: new, for: target)
        return render(changed: new)
    }

    /// The level of a filesystem as this watch shows it, from the last one it showed.
    private func severity(of snapshot: Snapshot, for target: Target) -> Severity {
        levels.level(of: snapshot, watchedPath: target.path, previous: target.severity) ?? .normal
    }

    private func options(for target: Target, _ snapshot: Snapshot?) -> BarOptions {
        profiles.options(watchedPath: target.path, snapshot: snapshot)
    }

    private func render(changed: Snapshot?) -> Bool {
        if let bar = options.barPID, let signal = options.signal {
            // i3blocks re-runs the block's command, which shows the news; false: the bar is gone.
            guard changed != nil else { return true }
            return BarProcess.signal(bar, realTimeOffset: signal)
        }
        let items = targets.compactMap { target in
            target.snapshot.map { BarOutput.Item(snapshot: $0, level: target.severity, expanded: target.expanded, watchedPath: target.path) }
        }
        return output.show(items, changed: changed, profiles: profiles, home: home)
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
        let result = try? FileDescriptor.read(STDIN_FILENO, into: &chunk)
        switch result {
        case .data(let count):
            for event in clicks.feed(chunk[0..<count]) {
                // i3bar sends the clicks of every block of the bar, ours named `usedspace` with
                // the path as instance; behind a wrapper that merges another program's blocks
                // (i3status's clock), theirs arrive here too and are not ours to act on.
                var target: Target?
                if options.format == .i3bar {
                    guard I3barRenderer.owns(event) else { continue }
                    if let instance = event.instance {
                        guard let clicked = targets.first(where: { $0.matches(instance) }) else { continue }
                        target = clicked
                    }
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
        guard let target, let command = options(for: target, target.snapshot).rightClickCommand else { return }
        var environment = ["USEDSPACE_PATH": target.snapshot?.path ?? target.path]
        if let mountPoint = target.snapshot?.mountPoint { environment["USEDSPACE_MOUNTPOINT"] = mountPoint }
        _ = try? DetachedCommand.run(command, extraEnvironment: environment)
    }
}
