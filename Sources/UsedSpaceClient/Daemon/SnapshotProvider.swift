import UsedSpaceCore
import UsedSpaceSystem

/// Where `status` gets its snapshot: from the daemon when it answers, otherwise by sampling
/// in this process. Clients never wait long on the daemon.
enum SnapshotProvider {
    /// How long a one-shot client waits for the daemon before sampling itself. Long enough
    /// for socket activation to start the daemon, short enough not to freeze a status bar.
    static let daemonTimeoutNanoseconds: UInt64 = 1_000_000_000

    /// The daemon's snapshot of `path` (canonical), or of every path it watches (`all`);
    /// nil when no daemon answers or it does not watch that path. `path` is worked out only
    /// when there is a socket: canonicalizing reads the mount table and resolves symlinks.
    static func fromDaemon(path: () -> String?, all: Bool = false) -> [Snapshot]? {
        guard let socket = DaemonConnection.socketPath else { return nil }
        // Nothing at the path: no daemon and no socket unit; skip the connect.
        guard (try? FileStatus.of(socket))?.isSocket == true else { return nil }
        let path = path()
        let view = ViewRequest(format: .snapshot, details: false, path: path, all: all)
        guard let connection = try? DaemonConnection(path: socket),
              let lines = try? connection.request(view.requestLine(verb: "status"), deadline: MonotonicClock.nanoseconds() + daemonTimeoutNanoseconds),
              !lines.isEmpty else { return nil }
        var snapshots: [Snapshot] = []
        for line in lines {
            guard let snapshot = try? SnapshotCodec.decode(line, source: .daemon) else { return nil }
            snapshots.append(snapshot)
        }
        return snapshots
    }

    /// Sampled so that a filesystem that hangs cannot hang us (IsolatedSample).
    static func direct(path: String, timeoutMilliseconds: Int32) -> Snapshot {
        IsolatedSample.snapshot(path, timeoutMilliseconds: timeoutMilliseconds)
    }
}
