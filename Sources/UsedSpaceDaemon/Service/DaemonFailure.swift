import UsedSpaceSystem

/// Why the daemon cannot start, or cannot set up what a reload or a change of the mount
/// table asks for: what failed, in words (a system call, libsystemd, the socket's path).
struct DaemonFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
    init(_ error: SystemError) { description = error.description }
}
