import CLinux

/// Replaces a file so that a reader, or a crash at any instant, sees either the old
/// contents or the new, never a mix: write a temporary file beside it, fsync it, rename it
/// over the old one, fsync the directory.
public enum AtomicFile {
    public static func write(_ contents: String, to path: String, mode: mode_t = 0o600) throws(SystemError) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let temporary = path + ".tmp"
        do throws(SystemError) {
            let file = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: mode)
            try file.writeAll(Array(contents.utf8))
            // O_CREAT's mode is filtered by the umask, and an existing temporary file keeps its own.
            _ = try SystemCall.retrying("fchmod") { fchmod(file.rawValue, mode) }
            _ = try SystemCall.retrying("fsync") { fsync(file.rawValue) }
            // Closed before the rename: an error that close reports is the write's.
            let raw = file.release()
            if CLinux.close(raw) != 0 && clinux_errno() != EINTR { throw SystemError.current("close") }
            _ = try SystemCall.retrying("rename") { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
        if let directoryFile = try? FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY) {
            fsync(directoryFile.rawValue)
        }
    }

    /// Creates a directory and its parents with `mode` (existing ones are left alone).
    public static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws(SystemError) {
        var current = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            if mkdir(current, mode) != 0 && clinux_errno() != EEXIST { throw .current("mkdir") }
        }
    }
}
