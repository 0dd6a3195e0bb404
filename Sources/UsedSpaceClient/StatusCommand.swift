import UsedSpaceCore
import UsedSpaceSystem

/// Prints one snapshot (or one per watched path) and exits: 0 when all have numbers, 1 when
/// one failed.
enum StatusCommand {
    static func run(_ options: StatusOptions) -> Int32 {
        let (configuration, problem) = ClientConfiguration.load(explicitPath: nil)
        let needsConfiguration = options.all || ![OutputFormat.text, .json].contains(options.format)
        if let problem, needsConfiguration { StandardStreams.error("usedspace: \(problem)") }
        let paths: [String]
        switch TargetPaths.resolve(path: options.path, all: options.all, configuration: configuration) {
        case .success(let resolved): paths = resolved
        case .failure(let failure):
            StandardStreams.error("usedspace: \(failure)")
            return ExitStatus.failure
        }
        var snapshots: [Snapshot]?
        if !options.noDaemon {
            let requested = options.path.map { TargetPaths.canonical($0, given: true) } ?? nil
            snapshots = SnapshotProvider.fromDaemon(path: requested, all: options.all)
        }
        let shown = snapshots ?? paths.compactMap { SnapshotProvider.direct(path: $0, timeoutMilliseconds: options.timeoutMilliseconds) }
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
            let home = ProcessEnvironment.homeDirectory.flatMap { try? PathResolver.canonical($0) }
            let blocks = snapshots.map { snapshot in
                BarBlock(snapshot, options: bar.labelled(for: snapshot, among: snapshots.count, home: home),
                         severity: bar.severity.severity(of: snapshot.stats, previous: .normal), expanded: options.details)
            }
            if options.format == .i3bar {
                output = I3barRenderer.statusLine(blocks) + "\n"
            } else if let block = BarBlock.combined(blocks, mountPoints: snapshots.map { $0.mountPoint ?? $0.path }) {
                output = SnapshotView.barLine(block, format: options.format) + "\n"
            }
        }
        StandardStreams.write(output)
        var status = ExitStatus.success
        for snapshot in snapshots where snapshot.state == .failed {
            StandardStreams.error("usedspace: \(ControlCharacters.replaced(in: snapshot.error ?? "the sample failed"))")
            status = ExitStatus.failure
        }
        return status
    }
}
