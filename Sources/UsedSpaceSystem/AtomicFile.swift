import Glibc

/// Replaces a file so that a reader, or a crash at any instant, sees either the old
/// contents or the new, never a mix: write a temporary file beside it, fsync it, rename it
/// over the old one, fsync the directory.
public enum AtomicFile {
    public static func write(_ contents: String, to path: String, mode: mode_t = 0o600) throws(SystemError) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let temporary = path + ".tmp"
        let descriptor = try retryingOnInterrupt("open") {
            open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        }
        var failure: SystemError?
        var bytes = Array(contents.utf8)
        var offset = 0
        while failure == nil && offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno != EINTR { failure = .current("write") }
            } else {
                offset += written
            }
        }
        // O_CREAT's mode is filtered by the umask, and an existing temporary file keeps its own.
        if failure == nil && fchmod(descriptor, mode) != 0 { failure = .current("fchmod") }
        if failure == nil && fsync(descriptor) != 0 { failure = .current("fsync") }
        if Glibc.close(descriptor) != 0 && failure == nil && errno != EINTR { failure = .current("close") }
        if failure == nil && rename(temporary, path) != 0 { failure = .current("rename") }
        if let failure {
            unlink(temporary)
            throw failure
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            Glibc.close(directoryDescriptor)
        }
    }

    /// Creates a directory and its parents with `mode` (existing ones are left alone).
    public static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws(SystemError) {
        var current = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            if mkdir(current, mode) != 0 && errno != EEXIST { throw .current("mkdir") }
        }
    }
}
