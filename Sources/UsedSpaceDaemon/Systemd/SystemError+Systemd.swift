import UsedSpaceSystem

/// A libsystemd call that failed is a failed system call: libsystemd returns the negative
/// errno where the C library returns -1 and sets errno. This is the one place that turns
/// it into the error.
extension SystemError {
    /// Returns a non-negative result, or throws for a negative errno.
    @discardableResult
    static func systemd(_ call: String, _ result: Int32) throws(SystemError) -> Int32 {
        guard result >= 0 else { throw SystemError(call: call, errno: -result) }
        return result
    }
}
