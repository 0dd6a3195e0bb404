import UsedSpaceCore
import UsedSpaceSystem

/// What a configuration makes of the daemon: its settings, the watched paths, the
/// Prometheus textfile, and the reason the file was refused when it was. A reload builds a
/// whole new one before it replaces the running one, so that a reload that fails at any
/// step leaves everything as it was.
struct ConfiguredState {
    var configuration: Configuration
    var watches: [WatchedPath]
    var textfile: BackgroundFileWriter?
    /// Why the configuration file is not what runs (FILE:LINE: message, and what runs
    /// instead), shown to every client, in `systemctl status` and in the journal.
    var problem: String?
    /// The configuration is the defaults (with the command line's options) because the file
    /// was refused at start-up.
    var isDefaults = false
    /// The mount points `path = auto` added to the configured paths, in the order of the
    /// mount table (each is also a watch's `configuredPath`).
    var automaticPaths: [String] = []

    var settings: DaemonSettings { configuration.daemon }
}

/// Makes the parts of a ConfiguredState that need the system (threads, descriptors, event
/// sources): the manager, or a test that makes one of them fail.
protocol ConfiguredStateFactory {
    func makeWatch(configuredPath: String, settings: DaemonSettings) throws(DaemonFailure) -> WatchedPath
    func makeTextfile(directory: String) throws(DaemonFailure) -> BackgroundFileWriter
    func start(_ watch: WatchedPath) throws(DaemonFailure)
}

/// A new state, complete and running, not yet swapped in.
struct ReloadPlan {
    var state: ConfiguredState
    /// Watches of the running state that the new one drops (their subscribers are told).
    var removed: [WatchedPath]
    var added: [WatchedPath]

    /// Builds the state `configuration` asks for, keeping the watches of `current` that it
    /// keeps (their snapshots, histories and subscribers stay). Everything that can fail
    /// happens here, the new watches' threads started last; what was made is released when
    /// the plan is dropped (a watch's thread ends with it). `automatic`: the mount points
    /// `path = auto` watches now (AutomaticWatches), after the configured paths; a change of
    /// the mount table is a plan like a reload's, with the same configuration.
    static func prepare<Factory: ConfiguredStateFactory>(_ configuration: Configuration, replacing current: ConfiguredState,
                                                         factory: Factory, automatic: [String] = []) throws(DaemonFailure) -> ReloadPlan {
        var watches: [WatchedPath] = []
        var added: [WatchedPath] = []
        for configured in configuration.daemon.paths + automatic where !watches.contains(where: { $0.configuredPath == configured }) {
            if let existing = current.watches.first(where: { $0.configuredPath == configured }) {
                watches.append(existing)
            } else {
                let watch = try factory.makeWatch(configuredPath: configured, settings: configuration.daemon)
                watches.append(watch)
                added.append(watch)
            }
        }
        var textfile: BackgroundFileWriter?
        if let configured = configuration.daemon.textfileDirectory {
            guard let directory = DaemonSettings.expand(configured, home: ProcessEnvironment.homeDirectory) else {
                throw DaemonFailure("cannot expand textfile-dir '\(configured)': HOME is not set")
            }
            textfile = current.textfile?.path == PrometheusTextfile.path(in: directory) ? current.textfile : try factory.makeTextfile(directory: directory)
        }
        for watch in added { try factory.start(watch) }
        let removed = current.watches.filter { old in !watches.contains { $0 === old } }
        return ReloadPlan(state: ConfiguredState(configuration: configuration, watches: watches, textfile: textfile, problem: nil,
                                                 automaticPaths: automatic.filter { !configuration.daemon.paths.contains($0) }),
                          removed: removed, added: added)
    }
}

/// The node_exporter textfile's name in its directory.
enum PrometheusTextfile {
    static func path(in directory: String) -> String { directory + "/usedspace.prom" }
}
