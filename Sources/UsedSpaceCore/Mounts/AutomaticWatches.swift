/// What `path = auto` watches: the mount point of every real filesystem of the mount table
/// (RealFilesystems: no pseudo filesystems, one mount per filesystem however often it is
/// mounted), except the filesystems the explicitly configured paths are on, which those
/// watches show already. Decided from the table's text alone: no mounted filesystem is
/// touched, so a dead network mount cannot stall the daemon's loop here.
public enum AutomaticWatches {
    /// `explicitPaths` absolute and normalised (LexicalPath), `~` expanded; each is taken to
    /// be on the deepest mount over it, going by the text (a symlink out of it is not seen
    /// through, and then its filesystem may be watched twice).
    public static func mountPoints(in entries: [MountEntry], besides explicitPaths: [String]) -> [String] {
        let taken = explicitPaths.compactMap { MountLocator.mount(containing: $0, in: entries) }
        return RealFilesystems.select(entries)
            .filter { entry in !taken.contains { $0.deviceMajor == entry.deviceMajor && $0.deviceMinor == entry.deviceMinor } }
            .map { $0.mountPoint }
    }
}

/// How the automatically watched mount points changed between two reads of the mount
/// table: what to start watching and what to stop, each in the order of its list.
public struct MountDiff: Equatable, Sendable {
    public var added: [String]
    public var removed: [String]

    public init(from old: [String], to new: [String]) {
        let before = Set(old), after = Set(new)
        added = new.filter { !before.contains($0) }
        removed = old.filter { !after.contains($0) }
    }

    public var isEmpty: Bool { added.isEmpty && removed.isEmpty }
}
