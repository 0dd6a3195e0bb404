import UsedSpaceCore
import UsedSpaceSystem

/// Which paths a `status` or `watch` shows: `--path`, every watched path of the
/// configuration (`--all`), or the home directory.
enum TargetPaths {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func resolve(path: String?, all: Bool, configuration: Configuration) -> Result<[String], Failure> {
        let home = ProcessEnvironment.homeDirectory
        if let path { return .success([path]) }
        if all {
            let expanded = configuration.daemon.paths.compactMap { DaemonSettings.expand($0, home: home) }
            guard expanded.count == configuration.daemon.paths.count else {
                return .failure(Failure(description: "HOME is not set, so '~' in the configuration means nothing; set HOME"))
            }
            return .success(expanded + automatic(configuration, explicit: expanded))
        }
        guard let home else {
            return .failure(Failure(description: "HOME is not set and /etc/passwd has no home directory for you; use --path PATH"))
        }
        return .success([home])
    }

    /// What `path = auto` adds to the explicit paths now, as the daemon would watch it (read
    /// from the mount table's text alone); nothing without it.
    static func automatic(_ configuration: Configuration, explicit: [String]) -> [String] {
        guard configuration.daemon.followsMounts else { return [] }
        let normalized = explicit.map { LexicalPath.normalize($0, currentDirectory: "/") }
        var rule = MountFollowing()
        return rule.wanted(in: (try? MountTable.read()) ?? [], besides: normalized)
    }

    /// The daemon knows its paths by their canonical form; realpath could hang on a dead
    /// mount, so a path under a network or FUSE mount is passed as written.
    static func canonical(_ path: String) -> String {
        MountTable.mayHang(path) ? path : (try? PathResolver.canonical(path)) ?? path
    }

    /// Whether a snapshot is of `path` (as given, or as it resolves).
    static func matches(_ path: String, _ snapshot: Snapshot) -> Bool {
        path == snapshot.path || canonical(path) == snapshot.path
    }

    /// The home directory as the environment gives it, normalised without asking any
    /// filesystem: for "~" in labels. Resolving it (symlinks) could hang on a home that is
    /// on a dead mount, and showing one filesystem must never touch another.
    static var lexicalHome: String? {
        ProcessEnvironment.homeDirectory.map { LexicalPath.normalize($0, currentDirectory: "/") }
    }
}
