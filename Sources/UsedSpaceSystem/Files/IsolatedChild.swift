import CLinux

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
        let output = Output(child: child, reading: reading)
        guard output.wait(milliseconds: timeoutMilliseconds), let finished = output.finished else { return .timedOut }
        return .finished(finished.bytes, exitStatus: finished.exitStatus)
    }

    /// A child's output as it arrives, for a caller that waits for it in its own poll loop
    /// (`descriptor`, then `readAvailable`) or here (`wait`). A child still running when its
    /// owner lets go is killed and left to exit whenever its filesystem answers.
    final class Output {
        private let child: pid_t
        private var reading: FileDescriptor?
        private var received: [UInt8] = []
        private(set) var finished: (bytes: [UInt8], exitStatus: Int32)?

        init(child: pid_t, reading: consuming FileDescriptor) {
            IsolatedChild.reapAbandoned()
            self.child = child
            self.reading = consume reading
        }

        deinit {
            guard finished == nil else { return }
            // It exits whenever the filesystem answers; SIGKILL makes that the moment.
            kill(child, SIGKILL)
            IsolatedChild.abandon(child)
        }

        /// The pipe to poll for readability while the child runs.
        var descriptor: Int32? { reading?.rawValue }

        /// Reads what has arrived without blocking; true once the child closed the pipe (and
        /// has been reaped: `finished` is set).
        @discardableResult
        func readAvailable() -> Bool {
            guard finished == nil else { return true }
            var chunk = [UInt8](repeating: 0, count: 16_384)
            while reading?.wait(for: .readable, milliseconds: 0) == true {
                let result: FileDescriptor.ReadResult?
                do { result = try reading?.read(into: &chunk) } catch { result = nil }
                switch result {
                case .data(let count)?: received += chunk[0..<count]
                case .wouldBlock?: return false
                case .endOfFile?, nil: return finish()
                }
            }
            return false
        }

        private func finish() -> Bool {
            reading = nil
            var status: Int32 = 0
            _ = try? SystemCall.retrying("waitpid") { waitpid(child, &status, 0) }
            // WIFEXITED / WEXITSTATUS (macros in glibc).
            let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            finished = (received, exitStatus)
            return true
        }

        /// Waits up to `milliseconds` for the child to finish; true when it has.
        func wait(milliseconds: Int32) -> Bool {
            let deadline = MonotonicClock.nanoseconds() + UInt64(max(milliseconds, 0)) * 1_000_000
            while !readAvailable() {
                let now = MonotonicClock.nanoseconds()
                guard now < deadline, reading?.wait(for: .readable, milliseconds: Int32((deadline - now) / 1_000_000) + 1) == true
                else { return false }
            }
            return true
        }
    }

    /// A child given up on: reaped once it has exited.
    static func abandon(_ child: pid_t) {
        abandoned.withLock { $0.append(child) }
        reapAbandoned()
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
