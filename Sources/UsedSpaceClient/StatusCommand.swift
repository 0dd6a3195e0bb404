import UsedSpaceCore
import UsedSpaceSystem

/// Prints one snapshot (or one per watched path) and exits: 0 when all have numbers, 1 when
/// one failed.
enum StatusCommand {
    static func run(_ options: StatusOptions) -> Int32 {
        // The file is read only when it matters (bar settings, --all): a plain status touches
        // no filesystem but the one it measures.
        let needsConfiguration = options.all || ![OutputFormat.text, .json].contains(options.format)
        var configuration = Configuration()
        if needsConfiguration {
            let (loaded, problem) = ClientConfiguration.load(explicitPath: nil, timeoutMicroseconds: UInt64(options.timeoutMilliseconds) * 1000)
            configuration = loaded
            if let problem { StandardStreams.error("usedspace: \(problem)") }
        }
        let paths: [String]
        switch TargetPaths.resolve(path: options.path, all: options.all, configuration: configuration) {
        case .success(let resolved): paths = resolved
        case .failure(let failure):
            StandardStreams.error("usedspace: \(failure)")
            return ExitStatus.failure
        }
        var snapshots: [Snapshot]?
        if !options.noDaemon {
            let requested = options.path.flatMap { TargetPaths.canonical($0, given: true) }
            snapshots = SnapshotProvider.fromDaemon(path: requested, all: options.all)
        }
        let shown = snapshots ?? paths.map { SnapshotProvider.direct(path: $0, timeoutMilliseconds: options.timeoutMilliseconds) }
        return show(shown, options: options, bar: configuration.bar)
    }

    static func show(_ snapshots: [Snapshot], options: StatusOptions, bar: BarOptions) -> Int32 {
        let many = snapshots.count > 1
        var output = ""
        switch options.format {
        case .json:
            output = snapshots.map { JSONRenderer.render($0) + "\n" }.joined()
        case .text:
            for snapshot in snapshots where snapshot.stats != nil {
                var lines = [(many ? ControlCharacters.replaced(in: snapshot.path) + "  " : "") + TextRenderer.statusLine(snapshot)]
                if options.details { lines += TextRenderer.detailLines(snapshot) }
                output += lines.map { $0 + "\n" }.joined()
            }
        case .i3bar, .i3blocks, .polybar, .waybar:
            let items = snapshots.map { snapshot in
                BarOutput.Item(snapshot: snapshot, severity: bar.severity.severity(of: snapshot.stats, previous: .normal), expanded: options.details)
            }
            output = BarOutput.line(items, format: options.format, bar: bar, home: TargetPaths.lexicalHome).map { $0 + "\n" } ?? ""
        }
        StandardStreams.write(output)
        if let problem = snapshots.lazy.compactMap(\.configurationProblem).first {
            StandardStreams.error("usedspace: warning: usedspaced refused its configuration: \(ControlCharacters.replaced(in: problem))"
                + " (fix it, check it with 'usedspace config check', then: systemctl --user reload usedspace)")
        }
        var status = ExitStatus.success
        for snapshot in snapshots where snapshot.state == .failed {
            StandardStreams.error("usedspace: \(ControlCharacters.replaced(in: snapshot.error ?? "the sample failed"))")
            status = ExitStatus.failure
        }
        return status
    }
}
