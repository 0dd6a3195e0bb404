import UsedSpaceCore
import UsedSpaceSystem

/// An i3blocks block with clicks, for i3blocks 1.4 (Debian 12), which gives a persistent
/// block no clicks of its own (its stdin is i3blocks' own, every block's clicks): the block
/// is `interval=once` with `signal=N`, so i3blocks runs `usedspace status --signal N` at
/// start, at a click (with $BLOCK_BUTTON: only the clicked block's command runs), and at
/// SIGRTMIN+N. A follower — `usedspace watch --bar-pid PID --signal N`, started by the
/// first status and alone by a lock — sends that signal to that one i3blocks at every
/// publish, and ends with it. The details' state is a file per block in the runtime
/// directory.
enum I3blocksFollow {
    static var directory: String? { ProcessEnvironment.runtimeDirectory.map { $0 + "/usedspace/i3blocks" } }

    static let signalRange: ClosedRange<Int32> = 1...30

    /// The watch side: the bar's exit to poll, and the lock that makes it the only follower.
    final class Follower {
        private let exit: FileDescriptor
        private let lock: FileDescriptor

        /// nil when another follower holds the lock, or the bar is gone.
        init?(bar: Int32, signal: Int32) {
            guard let directory = I3blocksFollow.directory, let lock = BarProcess.tryLock(lockPath(directory, bar: bar, signal: signal)),
                  let exit = BarProcess.exitDescriptor(bar) else { return nil }
            self.lock = lock
            self.exit = exit
        }

        var exitDescriptor: Int32 { exit.rawValue }
    }

    static func lockPath(_ directory: String, bar: Int32, signal: Int32) -> String { "\(directory)/\(bar)-\(signal).lock" }

    /// The status side: applies a click ($BLOCK_BUTTON), makes sure a follower runs, and says
    /// whether the details are shown and which button was clicked.
    static func prepare(signal: Int32, options: StatusOptions) -> (expanded: Bool, button: Int?) {
        guard let directory, (try? AtomicFile.makeDirectories(directory, mode: 0o700)) != nil, let bar = BarProcess.current() else {
            return (options.details, nil)
        }
        let block = [ProcessEnvironment.value("BLOCK_NAME"), ProcessEnvironment.value("BLOCK_INSTANCE")]
            .map { BlockEndpoint(pid: 1, name: $0 ?? "", output: nil).name ?? "" }.joined(separator: "-")
        let flag = "\(directory)/\(bar)-\(signal)-\(block).expanded"
        let button = ProcessEnvironment.value("BLOCK_BUTTON").flatMap(Int.init)
        var expanded = (try? FileStatus.of(flag)) != nil
        if button == 1 {
            expanded.toggle()
            if expanded { _ = try? AtomicFile.write("", to: flag) } else { _ = unlinkFile(flag) }
        }
        startFollower(bar: bar, signal: signal, options: options, directory: directory)
        return (expanded || options.details, button)
    }

    private static func startFollower(bar: Int32, signal: Int32, options: StatusOptions, directory: String) {
        // Held by a follower: it runs. (Two statuses at once may both start one; the second
        // finds the lock taken and ends.)
        guard BarProcess.tryLock(lockPath(directory, bar: bar, signal: signal)) != nil, let executable = BarProcess.executable else { return }
        var words = [executable, "watch", "--format", "json", "--bar-pid", "\(bar)", "--signal", "\(signal)"]
        if let path = options.path { words += ["--path", path] }
        if options.all { words.append("--all") }
        if let config = options.configPath { words += ["--config", config] }
        if options.noDaemon { words.append("--no-daemon") }
        _ = try? DetachedCommand.run("exec " + words.map(shellQuoted).joined(separator: " "))
    }

    static func shellQuoted(_ word: String) -> String {
        "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
