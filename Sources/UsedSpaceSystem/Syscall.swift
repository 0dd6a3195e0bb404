import Glibc

/// Runs a C call that returns -1 and sets errno on failure, retrying while it is
/// interrupted by a signal, the one place where EINTR is handled.
@inline(__always)
func retryingOnInterrupt<Result: BinaryInteger>(_ call: String, _ body: () -> Result) throws(SystemError) -> Result {
    while true {
        let result = body()
        if result != -1 { return result }
        if errno == EINTR { continue }
        throw SystemError.current(call)
    }
}
