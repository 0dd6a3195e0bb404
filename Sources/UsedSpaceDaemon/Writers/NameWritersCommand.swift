import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// `usedspaced --name-writers`: the helper the daemon asks who is filling a filesystem
/// (FillWriterExchange), run by usedspace-writers@.service with the connection as its
/// standard input and output. It runs outside the daemon's sandbox, where the user's own
/// /proc/PID/io and fdinfo can be read (PrivateUsers= makes them EACCES inside), and it
/// only reads them, and the filesystem's free space: one window of looks, as `usedspace
/// status` makes it (FillWriterWindow: up to 1.5 s), one answer, the end.
enum NameWritersCommand {
    /// The question comes at once from the daemon; a connection that says nothing is dropped.
    static let questionTimeoutNanoseconds: UInt64 = 2_000_000_000

    static func run() -> Int32 {
        ProcessControl.ignore(SIGPIPE)
        let answer: String
        do {
            let line = try LineWithin.read(from: STDIN_FILENO, limit: FillWriterExchange.maximumLineBytes,
                                           deadline: MonotonicClock.nanoseconds() + questionTimeoutNanoseconds)
            answer = self.answer(to: String(decoding: line, as: UTF8.self))
        } catch {
            StandardStreams.error("usedspaced: no question: \(error)")
            return UsedSpaceDaemon.ExitStatus.failure
        }
        return StandardStreams.write(answer) ? 0 : UsedSpaceDaemon.ExitStatus.failure
    }

    static func answer(to question: String) -> String {
        guard let mountPoint = FillWriterExchange.mountPoint(inQuestion: question) else {
            return FillWriterExchange.answer(failure: "not a mount point")
        }
        // The device from the mount table: the filesystem itself is never touched (it may be
        // one that does not answer).
        guard let entry = (try? MountTable.read())?.last(where: { $0.mountPoint == mountPoint }) else {
            return FillWriterExchange.answer(failure: "nothing is mounted at \(mountPoint)")
        }
        let seen = FillWriterWindow.look(at: [FillWriterWindow.Target(entry)], limit: FillWriterExchange.maximumWriters, home: nil)
        return FillWriterExchange.answer(seen[0])
    }
}
