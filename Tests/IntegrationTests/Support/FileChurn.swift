import Foundation

/// Keeps a filesystem's usage moving: writes a 1 MiB file and removes it, again and again,
/// every `pause` microseconds, on a thread of its own until stopped (or released).
final class FileChurn {
    private let stopped = Locked(false)

    init(in directory: String, pauseMicroseconds: UInt32) {
        let path = directory + "/churn"
        let stopped = self.stopped
        Thread {
            var toggle = false
            while !stopped.value {
                toggle.toggle()
                if toggle { try? Data(count: 1 << 20).write(to: URL(fileURLWithPath: path)) } else { try? FileManager.default.removeItem(atPath: path) }
                usleep(pauseMicroseconds)
            }
        }.start()
    }

    func stop() { stopped.set(true) }

    deinit { stop() }
}
