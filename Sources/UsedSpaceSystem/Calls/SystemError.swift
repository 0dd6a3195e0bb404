import CLinux

/// A failed system call: which call, on what, and the errno it set.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// The C library's message for the errno, e.g. "No such file or directory".
    public var message: String { String(cString: strerror(errno)) }

    public var description: String { "\(call): \(message)" }

    /// ENOENT: what a missing optional file reports.
    public var isNotFound: Bool { errno == ENOENT }

    /// The error of the call that just failed.
    static func current(_ call: String) -> SystemError {
        SystemError(call: call, errno: clinux_errno())
    }
}
