import Glibc

/// A libsystemd call that failed. libsystemd returns negative errno values; this is the one
/// place they are turned into errors.
public struct SystemdError: Error, Equatable, CustomStringConvertible {
    public var call: String
    public var errno: Int32

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }

    /// Returns a non-negative result, or throws for a negative errno.
    @discardableResult
    static func check(_ call: String, _ result: Int32) throws(SystemdError) -> Int32 {
        guard result >= 0 else { throw SystemdError(call: call, errno: -result) }
        return result
    }
}
