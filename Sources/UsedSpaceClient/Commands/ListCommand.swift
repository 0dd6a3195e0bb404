import UsedSpaceCore
import UsedSpaceSystem

/// `usedspace list`: every real filesystem (RealFilesystems), measured at once with the
/// hang timeout (MountSurvey), as a table (ListTable) or one JSON object per line.
enum ListCommand {
    /// How long the daemon may take beyond the measuring to say what it knows of the
    /// trends: the table never waits on it for more than this.
    static let daemonGraceNanoseconds: UInt64 = 10_000_000

    static func run(_ options: ListOptions) -> Int32 {
        // Asked first, answered while the filesystems are measured.
        let daemon = options.noDaemon ? nil : TrendQuery.start()
        let entries: [MountEntry]
        do {
            entries = try MountTable.read()
        } catch {
            StandardStreams.error("usedspace: cannot read \(MountTable.path): \(error)")
            return ExitStatus.failure
        }
        let chosen = choose(entries, options: options)
        let outcomes = MountSurvey.measure(chosen, timeoutMilliseconds: options.timeoutMilliseconds)
        let trends = daemon?.finish(deadline: MonotonicClock.nanoseconds() + daemonGraceNanoseconds) ?? [:]
        var rows: [ListRow] = []
        var failures: [String] = []
        let policy = options.severityPolicy
        for (entry, outcome) in zip(chosen, outcomes) {
            var row = ListRow(mountPoint: entry.mountPoint, fileSystemType: entry.fileSystemType, stats: nil)
            switch outcome {
            case .measured(let stats):
                // df leaves out filesystems of 0 blocks (pseudo ones) unless -a: so do we.
                if stats.totalBlocks == 0 && !options.all { continue }
                row.stats = stats
                row.severity = ListRow.severity(of: stats, policy: policy)
                row.timeToFull = trends[entry.mountPoint]
            case .failed(let message):
                row.problem = message
                failures.append("\(entry.mountPoint): statvfs: \(message)")
            case .notAnswering:
                row.problem = "not answering"
                failures.append(SampleError.timedOut(path: entry.mountPoint, seconds: Double(options.timeoutMilliseconds) / 1000).description)
            }
            rows.append(row)
        }
        rows.sort { $0.mountPoint.utf8.lexicographicallyPrecedes($1.mountPoint.utf8) }
        // As df's "no file systems processed": an empty table would read as a broken one.
        guard !rows.isEmpty else {
            StandardStreams.error("usedspace: no filesystem to list: none is mounted that --type, --exclude-type and --mount let through; see 'usedspace list --help'")
            return ExitStatus.failure
        }
        switch options.format {
        case .json:
            let now = WallClock.now()
            StandardStreams.write(rows.map { json($0, at: now, timeoutMilliseconds: options.timeoutMilliseconds) + "\n" }.joined())
        default:
            let tableOptions = ListTable.Options(unit: options.unit, columns: width, colors: colors, barCells: options.barWidth, glyphs: options.glyphs)
            StandardStreams.write(ListTable.render(rows, options: tableOptions).map { $0 + "\n" }.joined())
        }
        for failure in failures { StandardStreams.error("usedspace: \(ControlCharacters.replaced(in: failure))") }
        return failures.isEmpty ? ExitStatus.success : ExitStatus.failure
    }

    /// The mounts to show: the rule's, or every type named by --type (even one the rule
    /// hides), or with --all every mount that can be measured; then the filters.
    static func choose(_ entries: [MountEntry], options: ListOptions) -> [MountEntry] {
        var chosen: [MountEntry]
        if options.all {
            chosen = RealFilesystems.measurable(entries)
        } else if !options.types.isEmpty {
            chosen = RealFilesystems.onePerDevice(RealFilesystems.measurable(entries).filter { options.types.contains($0.fileSystemType) })
        } else {
            chosen = RealFilesystems.select(entries, includeLoopImages: options.loops)
        }
        if options.all && !options.types.isEmpty { chosen.removeAll { !options.types.contains($0.fileSystemType) } }
        chosen.removeAll { options.excludedTypes.contains($0.fileSystemType) }
        if !options.mountPatterns.isEmpty {
            chosen.removeAll { entry in !options.mountPatterns.contains { PathPattern.matches($0, entry.mountPoint) } }
        }
        return chosen
    }

    /// The keys of `status --format json` (docs/json.md), one filesystem per line.
    static func json(_ row: ListRow, at time: Timestamp, timeoutMilliseconds: Int32) -> String {
        var error: String?
        if let problem = row.problem {
            error = problem == "not answering"
                ? SampleError.timedOut(path: row.mountPoint, seconds: Double(timeoutMilliseconds) / 1000).description
                : "\(row.mountPoint): statvfs: \(problem)"
        }
        let snapshot = Snapshot(path: row.mountPoint, mountPoint: row.mountPoint, fileSystemType: row.fileSystemType, stats: row.stats,
                                state: row.stats == nil ? .failed : .fresh, seq: 1, sampledAt: time, source: .direct, error: error,
                                timeToFull: row.timeToFull)
        return JSONRenderer.render(snapshot)
    }

    /// The terminal's width; `COLUMNS` when set (as ls(1) takes it), so that a pipe into a
    /// pager can be given one.
    static var width: Int? {
        if let text = ProcessEnvironment.value("COLUMNS"), let columns = Int(text), columns > 0 { return columns }
        return Terminal.columns()
    }

    /// Colours on a terminal only, and never with NO_COLOR set to anything (no-color.org).
    static var colors: Bool {
        if let value = ProcessEnvironment.value("NO_COLOR"), !value.isEmpty { return false }
        return Terminal.isTerminal()
    }
}

/// What usedspaced knows of the trends of the filesystems it watches: asked before the
/// measuring, read after it, never waited on for long (a missing daemon costs nothing: no
/// socket, no connection).
struct TrendQuery {
    private let connection: DaemonConnection

    static func start() -> TrendQuery? {
        guard let socket = DaemonConnection.socketPath, (try? FileStatus.of(socket))?.isSocket == true,
              let connection = try? DaemonConnection(path: socket) else { return nil }
        guard (try? connection.send(ViewRequest(format: .snapshot, all: true).requestLine(verb: "status"))) != nil else { return nil }
        return TrendQuery(connection: connection)
    }

    /// Mount point → the estimate shown (the slow trend, or a fast fill), of the snapshots
    /// that have numbers; empty when the daemon did not answer by `deadline`.
    func finish(deadline: UInt64) -> [String: TimeToFull] {
        guard let lines = try? connection.answer(deadline: deadline) else { return [:] }
        var trends: [String: TimeToFull] = [:]
        for line in lines {
            guard let snapshot = try? SnapshotCodec.decode(line, source: .daemon), snapshot.stats != nil,
                  let mountPoint = snapshot.mountPoint, let estimate = snapshot.shownTimeToFull else { continue }
            trends[mountPoint] = estimate
        }
        return trends
    }
}
