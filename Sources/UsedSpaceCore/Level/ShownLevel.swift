/// Which level a client's view shows (`status`, `watch`): the daemon's, which its snapshot
/// carries, unless the view's own command line sets limits that judge otherwise than the
/// configuration's for that filesystem (`--warn 50%` where the file says 80 %): that view
/// then judges by them, with its own history (`previous`). Limits on the command line that
/// say what the configuration says (the documented `--warn 80% --critical 90%` where the
/// file sets none) change nothing: the view shows the daemon's level. A snapshot without a
/// level (no daemon, an older one) is judged here, as a first publish would judge it when
/// `previous` is nil.
public struct ShownLevel: Sendable {
    /// The configuration and the command line over it: the view's limits.
    private let own: BarProfiles
    /// The configuration alone, as the daemon reads it; nil when the client did not read it
    /// (then only the daemon's level is known).
    private let configured: BarProfiles?

    /// `configuration`: the file as read, or nil when it was not (a plain `status`, which
    /// touches no other filesystem than the one it measures; a command line that sets
    /// limits must read it).
    public init(configuration: Configuration?, commandLine: [(key: String, value: String)], home: String?) {
        own = BarProfiles(configuration: configuration ?? Configuration(), commandLine: commandLine, home: home)
        configured = configuration.map { BarProfiles(configuration: $0, home: home) }
    }

    /// nil: not known (no level carried, and the limits were not read).
    public func level(of snapshot: Snapshot, watchedPath: String?, previous: Severity?) -> Severity? {
        guard let configured else { return snapshot.level }
        let limits = own.options(watchedPath: watchedPath, snapshot: snapshot).severity
        if let carried = snapshot.level, limits.judgesLike(configured.options(watchedPath: watchedPath, snapshot: snapshot).severity) {
            return carried
        }
        return FilesystemLevel.decide(snapshot, limits: limits, previous: previous)
    }

    /// Whether a command line's bar settings include limits (then the configuration must be
    /// read to know whether they differ from it).
    public static func setsLimits(_ commandLine: [(key: String, value: String)]) -> Bool {
        commandLine.contains { ["warn", "critical", "hysteresis"].contains($0.key) }
    }
}
