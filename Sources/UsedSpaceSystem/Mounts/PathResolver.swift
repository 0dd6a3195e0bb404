import CLinux

/// Canonical absolute paths, as df resolves them before looking up the mount.
public enum PathResolver {
    public static func canonical(_ path: String) throws(SystemError) -> String {
        guard let resolved = realpath(path, nil) else { throw SystemError.current("realpath") }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
