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
            guard configuration.daemon.followsMounts else { return .success(expanded) }
            // path = auto, as the daemon would watch it now (read from the table's text alone).
            let explicit = expanded.map { LexicalPath.normalize($0, currentDirectory: "/") }
            return .success(expanded + AutomaticWatches.mountPoints(in: (try? MountTable.read()) ?? [], besides: explicit))
        }
        guard let home else {
            return .failure(Failure(description: "HOME is not set and /etc/passwd has no home directory for you; use --path PATH"))
        }
        return .success([home])
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
