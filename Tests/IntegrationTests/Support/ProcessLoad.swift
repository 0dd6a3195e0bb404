import Foundation

/// How much a running process did since this was made, from /proc: its wakeups (the
/// context switches of all its threads: each is a sleep ended, or a preemption) and its CPU
/// time. For "costs nothing on an idle disk", measured over a window.
struct ProcessLoad {
    struct Figures: CustomStringConvertible {
        var wakeups: Int
        var cpuMilliseconds: Int
        var description: String { "\(wakeups) wakeups, \(cpuMilliseconds) ms CPU" }
    }

    let pid: pid_t
    private let startSwitches: [String: Int]
    private let startTicks: Int

    init(pid: pid_t) {
        self.pid = pid
        startSwitches = Self.switches(pid)
        startTicks = Self.ticks(pid)
    }

    /// What the process did since `init`. Per thread: a thread started meanwhile counts
    /// from 0; one that ended meanwhile is not counted (its switches went with it).
    func since() -> Figures {
        let wakeups = Self.switches(pid).reduce(0) { sum, task in sum + task.value - (startSwitches[task.key] ?? 0) }
        return Figures(wakeups: wakeups, cpuMilliseconds: (Self.ticks(pid) - startTicks) * 1000 / sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Each thread's context switches, voluntary and not.
    static func switches(_ pid: pid_t) -> [String: Int] {
        var switches: [String: Int] = [:]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            for line in (readProcFile("/proc/\(pid)/task/\(task)/status") ?? "").split(separator: "\n")
            where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                switches[task, default: 0] += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            }
        }
        return switches
    }

    /// The CPU time of all its threads, in clock ticks: /proc/PID/stat's utime and stime
    /// (the 14th and 15th fields, counted here after the command's closing parenthesis).
    static func ticks(_ pid: pid_t) -> Int {
        let fields = (readProcFile("/proc/\(pid)/stat") ?? "").split(separator: ")").last?.split(separator: " ") ?? []
        return fields.count > 12 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
    }
}
