import CLinux

/// Starts a shell command that lives on its own (a disk analyser opened from the bar): a new
/// session, default signal handling, no inherited stdio (our stdout is the bar's input), and
/// nobody waits for it: children are reaped by the kernel once `reapChildrenAutomatically`
/// has been called.
public enum DetachedCommand {
    public static func reapChildrenAutomatically() {
        clinux_ignore_signal(SIGCHLD)
    }

    /// `extraEnvironment` is added to this process's environment for the command.
    public static func run(_ command: String, extraEnvironment: [String: String] = [:]) throws(SystemError) -> Int32 {
        var environment: [String] = []
        var index = 0
        while let environ = clinux_environment(), let entry = environ[index] {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if extraEnvironment[name] == nil { environment.append(text) }
            index += 1
        }
        for (name, value) in extraEnvironment.sorted(by: { $0.key < $1.key }) { environment.append("\(name)=\(value)") }
        var pointers: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        let pid = command.withCString { clinux_spawn_detached_shell($0, &pointers) }
        guard pid > 0 else { throw .current("posix_spawn") }
        return pid
    }
}
