import UsedSpaceCore

/// `usedspaced`'s command line. Every value here overrides the configuration file, also
/// after a reload.
struct DaemonOptions: Equatable {
    var paths: [String] = []
    /// `--path auto`: every real filesystem mounted, followed (DaemonSettings.followsMounts).
    var followsMounts = false
    var intervalMicroseconds: UInt64?
    var threshold: Fraction?
    var sampleTimeoutMicroseconds: UInt64?
    var maximumClients: Int?
    var idleTimeoutMicroseconds: UInt64?
    var textfileDirectory: String?
    var socketPath: String?
    var stateDirectory: String?
    var configPath: String?
    var verbose = false
    var showHelp = false
    var showVersion = false
    /// `--reload`: ask the running daemon to reload, instead of running one.
    var reload = false
    /// `--name-writers`: answer the daemon's question of who is filling a filesystem on
    /// standard input and output (usedspace-writers@.service), instead of running one.
    var nameWriters = false

    static let command = "usedspaced"

    static let help = """
        Usage: usedspaced [OPTIONS]

        The usedspace daemon: samples the filesystems of the watched paths (default: your
        home directory), publishes a new snapshot whenever the used rate moves by at least
        the threshold, and serves snapshots on a Unix socket. Normally started by systemd
        (usedspace.socket, usedspace.service); see usedspaced(8) for the socket protocol.

        Options:
          --path PATH            watch the filesystem holding PATH (repeat for several;
                                 default: ~, or the config file's [daemon] path lines)
          --path auto            also watch every real filesystem mounted (as
                                 `usedspace list` shows them), following mounts and
                                 unmounts as they happen; with other --path options, a
                                 filesystem one of them is on is not watched twice
          --interval DURATION    sample every DURATION (default 5s; e.g. 1s, 500ms, 2min)
          --threshold RATE       publish when the used rate moves by at least RATE
                                 (default 0.0001, i.e. 0.01%; 0 publishes every sample)
          --timeout DURATION     serve the last snapshot as stale when statvfs takes
                                 longer than DURATION (default 5s)
          --socket PATH          listen on PATH (default $USEDSPACE_SOCKET, or
                                 $XDG_RUNTIME_DIR/usedspace.sock); ignored when systemd
                                 passes the socket
          --state-dir DIR        keep the last snapshots in DIR (default
                                 $XDG_STATE_HOME/usedspace)
          --config FILE          read FILE instead of $XDG_CONFIG_HOME/usedspace/config
          --max-clients N        refuse connections beyond N at once (default 1024)
          --textfile-dir DIR     keep DIR/usedspace.prom current for node_exporter's
                                 textfile collector (Prometheus)
          --idle-timeout DURATION
                                 close a connection that sends no request for this
                                 long, unless it is subscribed (default 10s)
          -v, --verbose          log every publish, not only a change of Use% or state
              --reload           ask the running daemon (on --socket PATH or the
                                 default socket) to reload its configuration, and wait:
                                 exit status 0 when it applied the file, 1 (with the
                                 file and line on stderr) when it refused it
              --name-writers     read a mount point (percent-encoded) from standard
                                 input and answer who of yours is writing to it fastest,
                                 in one line of JSON: the daemon's helper, run by
                                 usedspace-writers@.service during a fast fill
          -h, --help             show this help
          -V, --version          print the version

        Signals: SIGHUP reloads the configuration (as --reload does, without an answer);
        SIGTERM and SIGINT stop the daemon. A configuration file with a mistake does not
        stop the daemon: it runs with the defaults and says why in the journal, in
        `systemctl --user status usedspace` and to every client.
        """

    static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var scanner = ArgumentScanner(arguments, command: command)
        while let token = scanner.next() {
            switch token {
            case .positional(let argument):
                throw .unexpectedArgument(argument, command: command)
            case .option(let name, let inline):
                switch name {
                case "--path":
                    let value = try scanner.value(of: name, inline: inline)
                    if value == DaemonSettings.automaticPath {
                        options.followsMounts = true
                        continue
                    }
                    guard value.hasPrefix("/") || value == "~" || value.hasPrefix("~/") else {
                        throw .invalidValue(option: name, value: value, reason: "the path must be absolute, or auto", command: command)
                    }
                    options.paths.append(value)
                case "--interval":
                    options.intervalMicroseconds = try scanner.duration(of: name, inline: inline, in: DaemonSettings.intervalRange)
                case "--timeout":
                    options.sampleTimeoutMicroseconds = try scanner.duration(of: name, inline: inline, in: DaemonSettings.timeoutRange)
                case "--threshold":
                    let value = try scanner.value(of: name, inline: inline)
                    do {
                        options.threshold = try ThresholdParser.parse(value)
                    } catch {
                        throw .invalidValue(option: name, value: value, reason: error.description, command: command)
                    }
                case "--max-clients":
                    let value = try scanner.value(of: name, inline: inline)
                    guard let count = Int(value), DaemonSettings.clientRange.contains(count) else {
                        throw .invalidValue(option: name, value: value, reason: "a whole number from 1 to 65536", command: command)
                    }
                    options.maximumClients = count
                case "--idle-timeout":
                    options.idleTimeoutMicroseconds = try scanner.duration(of: name, inline: inline, in: DaemonSettings.idleTimeoutRange)
                case "--textfile-dir":
                    options.textfileDirectory = try absolute(name, scanner.value(of: name, inline: inline))
                case "--socket":
                    options.socketPath = try absolute(name, scanner.value(of: name, inline: inline))
                case "--state-dir":
                    options.stateDirectory = try absolute(name, scanner.value(of: name, inline: inline))
                case "--config":
                    options.configPath = try absolute(name, scanner.value(of: name, inline: inline))
                case "--reload":
                    try scanner.requireNoValue(name, inline: inline)
                    options.reload = true
                case "--name-writers":
                    try scanner.requireNoValue(name, inline: inline)
                    options.nameWriters = true
                case "-v", "--verbose":
                    try scanner.requireNoValue(name, inline: inline)
                    options.verbose = true
                case "-h", "--help":
                    options.showHelp = true
                case "-V", "--version":
                    options.showVersion = true
                default:
                    throw .unknownOption(name, command: command)
                }
            }
        }
        return options
    }

    private static func absolute(_ option: String, _ value: String) throws(UsageError) -> String {
        guard value.hasPrefix("/") else {
            throw .invalidValue(option: option, value: value, reason: "the path must be absolute", command: command)
        }
        return value
    }

    /// Settings: defaults, then the config file, then these options.
    func applied(to base: DaemonSettings) -> DaemonSettings {
        var settings = base
        if !paths.isEmpty || followsMounts {
            settings.paths = paths
            settings.followsMounts = followsMounts
        }
        if let intervalMicroseconds { settings.intervalMicroseconds = intervalMicroseconds }
        if let threshold { settings.threshold = threshold }
        if let sampleTimeoutMicroseconds { settings.sampleTimeoutMicroseconds = sampleTimeoutMicroseconds }
        if let maximumClients { settings.maximumClients = maximumClients }
        if let idleTimeoutMicroseconds { settings.idleTimeoutMicroseconds = idleTimeoutMicroseconds }
        if let textfileDirectory { settings.textfileDirectory = textfileDirectory }
        return settings
    }
}
