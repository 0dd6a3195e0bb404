import Glibc

/// Collects what a forked child writes to a pipe, waiting at most until a deadline: work
/// that a filesystem which hangs must not be able to hang (a dead network mount can block
/// a call beyond the reach of any signal, and a process cannot finish exiting while one of
/// its threads is stuck that way; a child can be left behind instead).
enum IsolatedChild {
    enum Outcome {
        /// Everything the child wrote before it closed the pipe, and its exit status.
        case finished([UInt8], exitStatus: Int32)
        case timedOut
    }

    /// Children given up on at a deadline, reaped once their filesystem answers.
    private static let abandoned = ConditionLock<[pid_t]>([])

    static func collect(child: pid_t, output reading: consuming FileDescriptor, timeoutMilliseconds: Int32) -> Outcome {
        reapAbandoned()
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(timeoutMilliseconds, 0)) * 1_000_000
        while true {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline, reading.wait(for: .readable, milliseconds: Int32((deadline - now) / 1_000_000) + 1) else {
                // It exits whenever the filesystem answers; SIGKILL makes that the moment.
                kill(child, SIGKILL)
                abandoned.withLock { $0.append(child) }
                return .timedOut
            }
            guard let result = try? reading.read(into: &chunk) else { break }
            switch result {
            case .data(let count): received += chunk[0..<count]
            case .wouldBlock: continue
            case .endOfFile: break
            }
            if case .endOfFile = result { break }
        }
        var status: Int32 = 0
        _ = try? SystemCall.retrying("waitpid") { waitpid(child, &status, 0) }
        // WIFEXITED / WEXITSTATUS (macros in glibc).
        let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return .finished(received, exitStatus: exitStatus)
    }

    private static func reapAbandoned() {
        abandoned.withLock { children in
            children.removeAll { child in
                var status: Int32 = 0
                return waitpid(child, &status, WNOHANG) != 0
            }
        }
    }
}
