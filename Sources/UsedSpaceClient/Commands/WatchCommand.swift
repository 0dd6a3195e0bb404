import UsedSpaceCore
import UsedSpaceSystem

enum WatchCommand {
    static func run(_ options: WatchOptions) -> Int32 {
        var configuration = Configuration(), problem: String?, pending: ClientConfiguration.Pending?
        switch ClientConfiguration.begin(explicitPath: options.configPath) {
        case .loaded(let loaded):
            (configuration, problem) = loaded
            if let problem { StandardStreams.error("usedspace: \(problem)") }
        case .pending(let late):
            // The bar shows the disk at once; the file's settings follow when it answers.
            pending = late
            StandardStreams.error("usedspace: \(late.waitingLine)")
        }
        let profiles = WatchLoop.profiles(configuration, options: options)
        let paths: [String]
        switch TargetPaths.resolve(path: options.path, all: options.all, configuration: configuration) {
        case .success(let resolved): paths = resolved
        case .failure(let message):
            StandardStreams.error("usedspace: \(message)")
            return ExitStatus.failure
        }
        let targets = paths.map { path in
            // Always the path meant (the home directory by default), never "the daemon's
            // first": the same filesystem whether or not the daemon runs.
            WatchLoop.Target(path: path, canonical: TargetPaths.canonical(path), expanded: options.expanded)
        }
        do {
            let loop = try WatchLoop(options: options, profiles: profiles, levels: WatchLoop.levels(configuration, options: options),
                                     targets: targets, all: options.all)
            loop.pendingConfiguration = pending
            // Said already, in the client's words: the daemon's refusal of the same file adds
            // only that it runs with the defaults.
            loop.configurationWarning = ConfigurationWarning(ownProblem: problem, readTheDaemonsFile: options.configPath == nil)
            if options.all && configuration.daemon.followsMounts {
                let explicit = configuration.daemon.paths.compactMap { DaemonSettings.expand($0, home: ProcessEnvironment.homeDirectory) }
                    .map { LexicalPath.normalize($0, currentDirectory: "/") }
                loop.followMounts(explicit: explicit, automatic: paths.filter { !explicit.contains($0) })
            }
            return loop.run()
        } catch {
            StandardStreams.error("usedspace: cannot watch: \(error)")
            return ExitStatus.failure
        }
    }
}
