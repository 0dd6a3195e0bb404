import CLinux

/// Canonical absolute paths, as df resolves them before looking up the mount.
public enum PathResolver {
    public static func canonical(_ path: String) throws(SystemError) -> String {
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard clinux_resolve_path(path, &resolved) == 0 else { throw SystemError.current("realpath") }
        return resolved.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
