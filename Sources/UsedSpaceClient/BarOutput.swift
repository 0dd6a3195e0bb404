import UsedSpaceCore

/// The status-bar formats' output for `status` and `watch` alike: one block per filesystem
/// for i3bar, one combined text for the bars that take one per module.
enum BarOutput {
    struct Item {
        var snapshot: Snapshot
        var severity: Severity
        var expanded: Bool
    }

    /// One update in `format` (a bar format); nil when there is nothing to show (every block
    /// hidden). `home` (as the environment gives it, never resolved: that could touch a
    /// dead mount) is written "~" in labels.
    static func line(_ items: [Item], format: OutputFormat, bar: BarOptions, home: String?) -> String? {
        let blocks = items.map { item in
            BarBlock(item.snapshot, options: bar.labelled(for: item.snapshot, among: items.count, home: home),
                     severity: item.severity, expanded: item.expanded)
        }
        if format == .i3bar { return I3barRenderer.statusLine(blocks) }
        guard let block = BarBlock.combined(blocks, mountPoints: items.map { $0.snapshot.mountPoint ?? $0.snapshot.path }) else { return nil }
        return SnapshotView.barLine(block, format: format)
    }
}
