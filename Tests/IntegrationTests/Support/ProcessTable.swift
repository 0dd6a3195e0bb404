import Foundation

/// The machine's processes as /proc shows them: to find the process a bar runs and all it
/// started, and to see them gone. A zombie counts as gone: it runs nothing any more, and an
/// orphan's may stay, as this machine's PID 1 does not reap them.
enum ProcessTable {
    static func all() -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid_t($0) }
    }

    /// argv, as the process has it now.
    static func arguments(of pid: pid_t) -> [String] {
        (readProcFile("/proc/\(pid)/cmdline") ?? "").split(separator: "\0").map(String.init)
    }

    /// The state letter and the parent, from /proc/PID/stat (after the command's parentheses).
    static func status(of pid: pid_t) -> (state: Character, parent: pid_t)? {
        guard let stat = readProcFile("/proc/\(pid)/stat"), let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 1, let state = fields[0].first, let parent = pid_t(fields[1]) else { return nil }
        return (state, parent)
    }

    /// The threads of a process (their ids).
    static func threads(of pid: pid_t) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).compactMap { pid_t($0) }
    }

    /// A thread's state as /proc says it (R, S, D…).
    static func threadState(of pid: pid_t, _ thread: pid_t) -> Character? {
        guard let stat = readProcFile("/proc/\(pid)/task/\(thread)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].first { $0 != " " }
    }

    /// The threads of `pid` that stay in the kernel's uninterruptible wait (D) at every look
    /// over `seconds` (five looks), with their names: those blocked on something that does
    /// not answer. A thread passes through D for a moment on ordinary calls too (a vfork
    /// until the child execs, a page read), so one look alone would count those.
    static func threadsStuckInUninterruptibleWait(of pid: pid_t, over seconds: Double = 1) -> [String] {
        var stuck = Set(threads(of: pid))
        for look in 0..<5 {
            if look > 0 { usleep(useconds_t(seconds / 4 * 1_000_000)) }  // the looks, spread over the window
            stuck = stuck.filter { threadState(of: pid, $0) == "D" }
        }
        return stuck.sorted().map { thread in
            let name = readProcFile("/proc/\(pid)/task/\(thread)/comm")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            let waitingIn = readProcFile("/proc/\(pid)/task/\(thread)/wchan") ?? "?"
            return "\(thread) \(name) (in \(waitingIn))"
        }
    }

    static func isRunning(_ pid: pid_t) -> Bool {
        guard let state = status(of: pid)?.state else { return false }
        return state != "Z" && state != "X"
    }

    /// Every process started under `pid`, however deep (as long as it has not been orphaned yet).
    static func descendants(of pid: pid_t) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        for process in all() {
            if let parent = status(of: process)?.parent { children[parent, default: []].append(process) }
        }
        var found: [pid_t] = []
        var pending = [pid]
        while let next = pending.popLast() {
            let direct = children[next] ?? []
            found += direct
            pending += direct
        }
        return found
    }

    /// The running processes of program `name` with an argument that contains `text`.
    static func find(_ name: String, argumentContaining text: String) -> [pid_t] {
        all().filter { pid in
            let arguments = arguments(of: pid)
            guard let program = arguments.first, (program as NSString).lastPathComponent == name else { return false }
            return isRunning(pid) && arguments.dropFirst().contains { $0.contains(text) }
        }
    }

    /// The connections `pid` holds that it accepted on a listening Unix socket: a server's
    /// clients, still open on its side. From /proc/PID/fd and the socket table of its network
    /// namespace (/proc/PID/net/unix), where an accepted socket carries its listener's path
    /// and is no listener itself (__SO_ACCEPTCON, 0x10000); a socket the process connected
    /// (its bus, its journal stream) has no path. Nil when the process is gone.
    static func acceptedConnections(of pid: pid_t) -> Int? {
        guard let table = readProcFile("/proc/\(pid)/net/unix"),
              let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        var accepted = Set<Substring>()
        // Num RefCount Protocol Flags Type St Inode Path
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count >= 8, let flags = Int(fields[3], radix: 16), flags & 0x10000 == 0 else { continue }
            accepted.insert(fields[6])
        }
        return descriptors.filter { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)"),
                  target.hasPrefix("socket:[") else { return false }
            return accepted.contains(target.dropFirst(8).dropLast())
        }.count
    }

    /// One line per process: what a failing test shows of those left behind.
    static func describe(_ pids: [pid_t]) -> String {
        pids.map { "\($0) \(arguments(of: $0).joined(separator: " "))" }.joined(separator: "; ")
    }
}
