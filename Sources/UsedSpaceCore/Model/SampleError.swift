/// Why a path could not be measured. Each case carries what a person needs in order to
/// act on it; `description` is the one-line reason shown to users and logged.
public enum SampleError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    case pathNotFound(path: String)
    case permissionDenied(path: String)
    case notADirectoryComponent(path: String)
    /// The filesystem reports zero blocks (e.g. some pseudo filesystems): nothing to measure.
    case noBlocks(mountPoint: String)
    /// Blocks exist but none are used or available to the user (all reserved).
    case noUsableBlocks(mountPoint: String)
    /// The watched path was a mount point and nothing is mounted there now (an unplugged
    /// disk): the numbers would be those of the filesystem underneath, `underlying`.
    case notMounted(path: String, underlying: String)
    /// `statvfs` did not return within the sampling timeout (a hung network mount).
    case timedOut(path: String, seconds: Double)
    /// Any other failure of a system call, named with its errno message.
    case system(call: String, path: String, message: String)

    public var description: String {
        switch self {
        case .pathNotFound(let path):
            return "\(path): no such file or directory"
        case .permissionDenied(let path):
            return "\(path): permission denied"
        case .notADirectoryComponent(let path):
            return "\(path): a component of the path is not a directory"
        case .noBlocks(let mountPoint):
            return "\(mountPoint): the filesystem reports 0 blocks"
        case .noUsableBlocks(let mountPoint):
            return "\(mountPoint): the filesystem reports no used or available blocks"
        case .notMounted(let path, let underlying):
            return "\(path): nothing is mounted here any more (it is now part of \(underlying))"
        case .timedOut(let path, let seconds):
            return "\(path): statvfs did not answer within \(SampleError.seconds(seconds)) (hung mount?)"
        case .system(let call, let path, let message):
            return "\(path): \(call): \(message)"
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
