import UsedSpaceCore
import UsedSpaceSystem

enum WatchCommand {
    static func run(_ options: WatchOptions) -> Int32 {
        let (configuration, problem) = ClientConfiguration.load(explicitPath: options.configPath, timeoutMicroseconds: options.timeoutMicroseconds)
        if let problem { StandardStreams.error("usedspace: \(problem)") }
        let bar = options.barOptions(base: configuration.bar)
        let paths: [String]
        switch TargetPaths.resolve(path: options.path, all: options.all, configuration: configuration) {
        case .success(let resolved): paths = resolved
        case .failure(let message):
            StandardStreams.error("usedspace: \(message)")
            return ExitStatus.failure
        }
        let targets = paths.map { path in
            WatchLoop.Target(path: path, canonical: TargetPaths.canonical(path, given: options.path != nil || options.all), expanded: options.expanded)
        }
        do {
            return try WatchLoop(options: options, bar: bar, targets: targets, all: options.all).run()
        } catch {
            StandardStreams.error("usedspace: cannot watch: \(error)")
            return ExitStatus.failure
        }
    }
}
