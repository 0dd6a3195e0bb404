/// Finds the mount that holds a path, as df does: the deepest mount point that is the path
/// or one of its ancestors, the later one when mounts are stacked on one point.
public enum MountLocator {
    /// `path` must be canonical (absolute, no `.`/`..`/symlinks): the caller resolves it.
    /// When the path's device is known, mounts of that device are preferred, which keeps a
    /// mount hidden under a later one from being chosen.
    public static func mount(
        containing path: String, in entries: [MountEntry], device: (major: UInt32, minor: UInt32)? = nil
    ) -> MountEntry? {
        var best: MountEntry?
        var bestMatchesDevice = false
        for entry in entries where isAncestorOrSelf(entry.mountPoint, of: path) {
            let matchesDevice = device.map { $0.major == entry.deviceMajor && $0.minor == entry.deviceMinor } ?? false
            guard let current = best else {
                best = entry
                bestMatchesDevice = matchesDevice
                continue
            }
            if bestMatchesDevice && !matchesDevice { continue }
            if matchesDevice && !bestMatchesDevice || entry.mountPoint.utf8.count >= current.mountPoint.utf8.count {
                best = entry
                bestMatchesDevice = matchesDevice
            }
        }
        return best
    }

    static func isAncestorOrSelf(_ mountPoint: String, of path: String) -> Bool {
        if mountPoint == "/" { return path.hasPrefix("/") }
        guard path.hasPrefix(mountPoint) else { return false }
        let rest = path.utf8.dropFirst(mountPoint.utf8.count)
        return rest.isEmpty || rest.first == UInt8(ascii: "/")
    }
}
