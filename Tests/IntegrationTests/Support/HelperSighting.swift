import Foundation

/// Watches /proc, on a thread of its own, for a child of `parent` (a user manager) whose
/// command line holds `marker` (a short-lived helper, usedspace-writers@.service's
/// `usedspaced --name-writers`) and keeps what /proc said of the first one seen: its status
/// fields and its uid_map (which tells a user namespace of its own from the initial one).
/// Other suites' managers run helpers of their own meanwhile: those are not it.
final class HelperSighting {
    struct Sighting {
        var status: [String: String]
        var uidMap: String
    }

    let seen = Locked<Sighting?>(nil)
    private let stopped = Locked(false)

    init(marker: String, parent: pid_t) {
        let seen = self.seen, stopped = self.stopped
        Thread {
            while !stopped.value && seen.value == nil {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int32(name) != nil {
                    guard let command = Self.read("/proc/\(name)/cmdline"), command.contains(marker),
                          let status = Self.read("/proc/\(name)/status"), let uidMap = Self.read("/proc/\(name)/uid_map") else { continue }
                    let fields = Dictionary(status.split(separator: "\n").compactMap { line -> (String, String)? in
                        let parts = line.split(separator: ":", maxSplits: 1)
                        return parts.count == 2 ? (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces)) : nil
                    }, uniquingKeysWith: { first, _ in first })
                    guard fields["PPid"] == "\(parent)" else { continue }
                    seen.set(Sighting(status: fields, uidMap: uidMap))
                    break
                }
                usleep(20_000)
            }
        }.start()
    }

    func stop() { stopped.set(true) }

    /// With read(2): Foundation's FileHandle traps on the ESRCH of a process that is gone.
    static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 16384)
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
    }

    deinit { stopped.set(true) }
}
