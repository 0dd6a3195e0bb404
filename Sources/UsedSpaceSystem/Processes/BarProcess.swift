import CLinux

/// The status bar process that runs a block's command (i3blocks, through `sh -c` or not):
/// what an i3blocks block follows, and signals, and no other process.
public enum BarProcess {
    static let shells: Set = ["sh", "dash", "bash", "zsh"]

    /// The nearest ancestor of this process that is not a shell (`sh -c`, or a wrapper
    /// script: a process whose executable is a shell).
    public static func current() -> Int32? {
        ProcessTree.lineage(of: getpid()).dropFirst().first { pid in
            guard pid > 1 else { return true }
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
            guard count > 0 else { return true }
            let executable = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return !shells.contains(String(executable.split(separator: "/").last ?? ""))
        }.flatMap { $0 > 1 ? $0 : nil }
    }

    /// SIGRTMIN as i3blocks counts it: glibc's, the kernel's 32 and the two glibc keeps for
    /// itself. i3blocks is built against the system's glibc where usedspace runs (beside
    /// systemd); this client's own libc may count differently (musl keeps three: 35).
    static let barRealTimeSignalBase: Int32 = 34

    /// SIGRTMIN + `offset` to `pid`: i3blocks' `signal=offset`.
    public static func signal(_ pid: Int32, realTimeOffset offset: Int32) -> Bool {
        kill(pid, barRealTimeSignalBase + offset) == 0
    }

    /// A descriptor that polls readable once `pid` has exited.
    public static func exitDescriptor(_ pid: Int32) -> FileDescriptor? {
        let raw = clinux_pidfd_open(pid)
        return raw >= 0 ? FileDescriptor(owning: raw) : nil
    }

    /// An exclusive lock on `path`, held while the descriptor lives; nil when taken.
    public static func tryLock(_ path: String) -> FileDescriptor? {
        let raw = path.withCString { clinux_try_lock($0) }
        return raw >= 0 ? FileDescriptor(owning: raw) : nil
    }

    /// This program's own executable.
    public static var executable: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
