import UsedSpaceSystem

/// Where the daemon's files are, resolved once from options and the XDG environment.
/// (On systemd 252, StateDirectory= in a user unit points into $XDG_CONFIG_HOME, so the
/// daemon resolves the state directory itself.)
struct DaemonPaths: Equatable {
    var socket: String
    var stateDirectory: String
    var configFile: String
    /// Whether the config file was named explicitly (then it must exist).
    var configIsExplicit: Bool
    /// The helper that names who is filling a disk (usedspace-writers.socket):
    /// $USEDSPACE_WRITERS_SOCKET, or $XDG_RUNTIME_DIR/usedspace-writers.sock; nil: none.
    var writersSocket: String? = nil

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func resolve(_ options: DaemonOptions) throws(Failure) -> DaemonPaths {
        let socket: String
        if let path = options.socketPath ?? ProcessEnvironment.value("USEDSPACE_SOCKET") {
            socket = path
        } else if let runtime = ProcessEnvironment.runtimeDirectory {
            socket = runtime + "/usedspace.sock"
        } else {
            throw Failure(description: "XDG_RUNTIME_DIR is not set, so there is no place for the socket; pass --socket PATH")
        }
        guard let state = options.stateDirectory ?? ProcessEnvironment.xdgDirectory("XDG_STATE_HOME", fallback: ".local/state").map({ $0 + "/usedspace" }) else {
            throw Failure(description: "neither XDG_STATE_HOME nor HOME is set; pass --state-dir DIR")
        }
        let config = options.configPath ?? ProcessEnvironment.xdgDirectory("XDG_CONFIG_HOME", fallback: ".config").map { $0 + "/usedspace/config" }
        let writers = ProcessEnvironment.value("USEDSPACE_WRITERS_SOCKET") ?? ProcessEnvironment.runtimeDirectory.map { $0 + "/usedspace-writers.sock" }
        return DaemonPaths(socket: socket, stateDirectory: state, configFile: config ?? "", configIsExplicit: options.configPath != nil,
                           writersSocket: writers)
    }
}
