import CLinux

/// Shell-style patterns on paths (fnmatch(3)): `/media/*` matches every mount point under
/// /media, `*` crossing slashes, as `--mount` documents.
public enum PathPattern {
    public static func matches(_ pattern: String, _ path: String) -> Bool {
        fnmatch(pattern, path, 0) == 0
    }
}
