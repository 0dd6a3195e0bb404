import CLinux

/// The one place where system calls are retried and their errno read: a call interrupted by
/// a signal (EINTR) is made again; on a non-blocking descriptor "would block" (EAGAIN) is an
/// answer, not an error.
enum SystemCall {
    /// Runs `body` (a C call that returns -1 and sets errno on failure) until it is not
    /// interrupted.
    @inline(__always)
    static func retrying<Result: BinaryInteger>(_ call: String, _ body: () -> Result) throws(SystemError) -> Result {
        while true {
            let result = body()
            if result != -1 { return result }
            if clinux_errno() == EINTR { continue }
            throw SystemError.current(call)
        }
    }

    /// As `retrying`, but nil when the call would block.
    @inline(__always)
    static func nonBlocking<Result: BinaryInteger>(_ call: String, _ body: () -> Result) throws(SystemError) -> Result? {
        while true {
            let result = body()
            if result != -1 { return result }
            switch clinux_errno() {
            case EINTR: continue
            case EAGAIN: return nil
            default: throw SystemError.current(call)
            }
        }
    }
}
