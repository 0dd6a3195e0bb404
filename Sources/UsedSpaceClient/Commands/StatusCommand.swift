import UsedSpaceCore
import UsedSpaceSystem

/// Prints one snapshot (or one per watched path) and exits: 0 when all have numbers, 1 when
/// one failed.
enum StatusCommand {
    static func run(_ options: StatusOptions) -> Int32 {
        var options = options
        var button: Int?
        if let signal = options.signal {
            (options.details, button) = I3blocksFollow.prepare(signal: signal, options: options)
        }
        // The file is read only when it matters (bar formats, --all, --config, bar settings on
        // the command line, whose limits and templates the level is judged with): text and
        // json of one path touch no filesystem but the one they measure, and show the level
        // the daemon decided, when one answers.
        let needsConfiguration = options.all || options.format.isBar || options.configPath != nil || !options.bar.isEmpty
        var configuration = Configuration()
        var warning = ConfigurationWarning(ownProblem: nil, readTheDaemonsFile: options.configPath == nil)
        if needsConfiguration {
            let (loaded, problem) = ClientConfiguration.load(explicitPath: options.configPath)
            configuration = loaded
            warning.ownProblem = problem
        }
        let paths: [String]
        switch TargetPaths.resolve(path: options.path, all: options.all, configuration: configuration) {
        case .success(let resolved): paths = resolved
        case .failure(let failure):
            warning.report(daemonRefusal: nil)
            StandardStreams.error("usedspace: \(failure)")
            return ExitStatus.failure
        }
        var snapshots: [Snapshot]?
        if let seqs = options.after {
            let path = options.all ? nil : TargetPaths.canonical(paths[0])
            switch StatusLongPoll.wait(path: path, all: options.all, after: seqs) {
            case .changed(let changed): snapshots = changed
            case .noDaemon: break
            case .readerGone: return ExitStatus.failure
            }
        } else if !options.noDaemon {
            // Always the path meant (the home directory by default), never "the daemon's
            // first": the same filesystem whether or not the daemon runs.
            snapshots = SnapshotProvider.fromDaemon(path: { options.all ? nil : TargetPaths.canonical(paths[0]) }, all: options.all)
        }
        var shown = snapshots ?? paths.map { SnapshotProvider.direct(path: $0, timeoutMilliseconds: options.timeoutMilliseconds) }
        if snapshots == nil && options.all && configuration.daemon.followsMounts {
            // As the daemon does: a filesystem of `path = auto` you cannot reach is not yours to watch.
            let explicit = configuration.daemon.paths.compactMap { DaemonSettings.expand($0, home: ProcessEnvironment.homeDirectory) }
            let automatic = Set(TargetPaths.automatic(configuration, explicit: explicit))
            shown.removeAll { automatic.contains($0.path) && $0.error == SampleError.permissionDenied(path: $0.path).description }
        }
        // Who is filling a filesystem, where it is shown (details, JSON, waybar's tooltip).
        if options.details || options.format == .json || options.format == .waybar { shown = FillWriterLookup.named(shown) }
        // The home directory names [filesystem ~/…] sections: only a configuration has them.
        let profiles = BarProfiles(configuration: options.format.isBar ? configuration : Configuration(),
                                   commandLine: options.bar.pairs, home: needsConfiguration ? TargetPaths.lexicalHome : nil)
        let watched = options.all ? shown.map { snapshot in paths.first { TargetPaths.matches($0, snapshot) } } : [paths[0]]
        let levels = ShownLevel(configuration: needsConfiguration ? configuration : nil, commandLine: options.bar.pairs,
                                home: needsConfiguration ? TargetPaths.lexicalHome : nil)
        // JSON with the configuration read (--all, --config): each filesystem's label as the
        // daemon's D-Bus object says it, for the Plasma widget, which has no D-Bus.
        let labels = options.format == .json && needsConfiguration
            ? BarProfiles(configuration: configuration, home: TargetPaths.lexicalHome) : nil
        let status = show(shown, watchedPaths: watched, options: options, profiles: profiles, levels: levels, labels: labels, warning: warning)
        if button == 3, let snapshot = shown.first {
            let options = profiles.options(watchedPath: watched.first ?? nil, snapshot: snapshot)
            if let command = options.rightClickCommand {
                var environment = ["USEDSPACE_PATH": snapshot.path]
                if let mountPoint = snapshot.mountPoint { environment["USEDSPACE_MOUNTPOINT"] = mountPoint }
                _ = try? DetachedCommand.run(command, extraEnvironment: environment)
            }
        }
        return status
    }

    /// `levels`: which level each filesystem is shown at (a one-shot has no history);
    /// `labels`: the configuration's, for JSON.
    static func show(_ snapshots: [Snapshot], watchedPaths: [String?], options: StatusOptions, profiles: BarProfiles, levels: ShownLevel,
                     labels: BarProfiles? = nil, warning: ConfigurationWarning = ConfigurationWarning(ownProblem: nil, readTheDaemonsFile: false)) -> Int32 {
        var items: [BarOutput.Item] = []
        for (index, snapshot) in snapshots.enumerated() {
            let watched = index < watchedPaths.count ? watchedPaths[index] : nil
            items.append(BarOutput.Item(snapshot: snapshot, level: levels.level(of: snapshot, watchedPath: watched, previous: nil),
                                        expanded: options.details, watchedPath: watched))
        }
        var output = ""
        switch options.format {
        case .json:
            output = items.map { BarOutput.json($0, profiles: profiles, labels: labels) + "\n" }.joined()
        case .text:
            let text = BarOutput.text(items.filter { $0.snapshot.stats != nil }, profiles: profiles, columns: Terminal.columns())
            output = text.isEmpty ? "" : text + "\n"
        case .i3bar, .i3blocks, .polybar, .waybar:
            output = BarOutput.line(items, format: options.format, profiles: profiles, home: TargetPaths.lexicalHome).map { $0 + "\n" } ?? ""
        }
        StandardStreams.write(output)
        warning.report(daemonRefusal: snapshots.lazy.compactMap { $0.configurationProblem }.first)
        var status = ExitStatus.success
        for snapshot in snapshots where snapshot.state == .failed {
            StandardStreams.error("usedspace: \(ControlCharacters.replaced(in: snapshot.error ?? "the sample failed"))")
            status = ExitStatus.failure
        }
        return status
    }
}
