import Foundation

/// Writes into one file at a fixed rate, as a runaway log or a download would: every 100 ms
/// the bytes due by then (paced by the monotonic clock, so a late wakeup catches up), on a
/// thread of its own until stopped (or released) or the filesystem is full.
final class SteadyWriter {
    private let stopped = Locked(false)
    private let done = DispatchSemaphore(value: 0)
    let written = Locked(0)

    init(path: String, bytesPerSecond: Int) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw HarnessFailure("open \(path): \(String(cString: strerror(errno)))") }
        let stopped = self.stopped, written = self.written, done = self.done
        Thread {
            defer { close(descriptor); done.signal() }
            let chunk = [UInt8](repeating: 0x4C, count: 1 << 20)
            let start = DispatchTime.now().uptimeNanoseconds
            while !stopped.value {
                let due = Int(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 * Double(bytesPerSecond))
                while written.value < due {
                    let count = min(chunk.count, due - written.value)
                    let result = chunk.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, count) }
                    guard result > 0 else { return }
                    written.update { $0 += result }
                }
                usleep(100_000)
            }
        }.start()
    }

    /// Stops writing and waits for the thread to have stopped.
    func stop() {
        stopped.set(true)
        done.wait()
        done.signal()
    }

    deinit { stopped.set(true) }
}
