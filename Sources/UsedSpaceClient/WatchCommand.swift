import UsedSpaceCore
import UsedSpaceSystem

enum WatchCommand {
    static func run(_ options: WatchOptions) -> Int32 {
        guard let path = options.path ?? ProcessEnvironment.homeDirectory else {
            StandardStreams.error("usedspace: HOME is not set and /etc/passwd has no home directory for you; use --path PATH")
            return ExitStatus.failure
        }
        let (configuration, problem) = ClientConfiguration.load(explicitPath: options.configPath)
        if let problem { StandardStreams.error("usedspace: \(problem)") }
        let bar = options.barOptions(base: configuration.bar)
        // The daemon knows its paths by their canonical form; realpath could hang on a dead
        // mount, so a path under a network or FUSE mount is passed as written.
        let requested = options.path == nil ? nil : IsolatedSampler.mayHangLexically(path) ? path : try? PathResolver.canonical(path)
        do {
            return try Watcher(options: options, bar: bar, path: path, requestedPath: requested ?? (options.path == nil ? nil : path)).run()
        } catch {
            StandardStreams.error("usedspace: cannot watch: \(error)")
            return ExitStatus.failure
        }
    }
}
