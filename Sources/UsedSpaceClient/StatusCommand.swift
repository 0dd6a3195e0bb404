import UsedSpaceCore
import UsedSpaceSystem

/// Prints one snapshot and exits: 0 when it has numbers, 1 when it failed.
enum StatusCommand {
    static func run(_ options: StatusOptions) -> Int32 {
        guard let path = options.path ?? ProcessEnvironment.homeDirectory else {
            StandardStreams.error("usedspace: HOME is not set and the password database has no home directory; use --path PATH")
            return ExitStatus.failure
        }
        if !options.noDaemon {
            // The daemon knows paths by their canonical form; one that does not resolve is
            // sampled here, which reports why.
            // realpath could hang on a dead mount: a path under one is passed as written.
            let requested = options.path == nil ? nil : IsolatedSampler.mayHangLexically(path) ? path : try? PathResolver.canonical(path)
            if options.path == nil || requested != nil, let snapshot = SnapshotProvider.fromDaemon(path: requested) {
                return show(snapshot, options: options)
            }
        }
        guard let snapshot = SnapshotProvider.direct(path: path, timeoutMilliseconds: options.timeoutMilliseconds) else {
            return ExitStatus.failure
        }
        return show(snapshot, options: options)
    }

    static func show(_ snapshot: Snapshot, options: StatusOptions) -> Int32 {
        switch options.format {
        case .json:
            StandardStreams.write(JSONRenderer.render(snapshot) + "\n")
        case .text:
            if snapshot.stats != nil { StandardStreams.write(TextRenderer.render(snapshot, details: options.details)) }
        case .i3bar, .i3blocks, .polybar, .waybar:
            let (configuration, problem) = ClientConfiguration.load(explicitPath: nil)
            if let problem { StandardStreams.error("usedspace: \(problem)") }
            let lines = SnapshotView.lines(snapshot, format: .rendered(options.format), details: options.details, options: configuration.bar)
            StandardStreams.write(lines.map { $0 + "\n" }.joined())
        }
        if snapshot.state == .failed {
            StandardStreams.error("usedspace: \(snapshot.error ?? "the sample failed")")
            return ExitStatus.failure
        }
        return ExitStatus.success
    }
}
