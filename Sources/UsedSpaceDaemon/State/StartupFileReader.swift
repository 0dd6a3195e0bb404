import UsedSpaceCore
import UsedSpaceSystem

/// Reads the daemon's files at start-up so that a directory on a filesystem that hangs (a
/// home on a dead NFS server) holds the daemon's first answer up for a moment at most: every
/// file is read at once, each in a child process where its filesystem may hang
/// (IsolatedFileRead), and all are waited for together for ConfigFile.answerDeadlineMicroseconds.
/// A file that answers later is handed over when it does (LateFileRead), so that what it
/// holds (the last seq, the snoozed notifications, the history) is not lost.
struct StartupFileReader {
    let logger: Logger

    struct File {
        let path: String
        let limit: Int
        /// For the log: "the state file".
        let what: String
    }

    enum Outcome {
        /// The text; nil when the file does not exist, or could not be read (logged).
        case read(String?)
        /// Not answered yet.
        case late(IsolatedFileRead)
    }

    /// The outcome of each file, in order.
    func read(_ files: [File]) -> [Outcome] {
        let reads = files.map { IsolatedFileRead.start($0.path, limit: $0.limit) }
        let deadline = MonotonicClock.nanoseconds() + ConfigFile.answerDeadlineMicroseconds * 1000
        return zip(files, reads).map { file, read in
            let now = MonotonicClock.nanoseconds()
            guard read.wait(microseconds: now < deadline ? (deadline - now) / 1000 : 0) else {
                logger.warning("\(file.what) \(file.path) has not answered within \(DurationParser.describe(microseconds: ConfigFile.answerDeadlineMicroseconds)); starting without it, and taking it when it answers",
                               metadata: ["file": "\(file.path)"])
                return .late(read)
            }
            return .read(text(of: file, read.result))
        }
    }

    /// The text of a read that answered; nil (and logged) when it failed.
    func text(of file: File, _ result: Result<[UInt8], FileReadError>?) -> String? {
        switch result {
        case .success(let bytes)?:
            return String(decoding: bytes, as: UTF8.self)
        case .failure(let error)?:
            if !error.isNotFound {
                logger.warning("cannot read \(file.what) \(file.path): \(error); starting without it, it will be replaced",
                               metadata: ["file": "\(file.path)", "reason": "\(error)"])
            }
            return nil
        case nil:
            return nil
        }
    }
}

/// A file that answered after the start-up deadline, taken on the loop when it arrives.
final class LateFileRead {
    private let read: IsolatedFileRead
    private var source: IOEventSource?

    /// `arrived` is called once, on the loop, with the read's result.
    init(_ read: IsolatedFileRead, loop: EventLoop, arrived: @escaping (Result<[UInt8], FileReadError>) -> Void) throws(SystemError) {
        self.read = read
        guard let descriptor = read.descriptor else { return }
        source = try IOEventSource(loop: loop, descriptor: descriptor, events: IOEvents.readable) { [unowned(unsafe) self] _ in
            // Off before the read can close the pipe at its end (epoll must not be left
            // watching a number the next descriptor may get); on again while it goes on.
            self.source?.setEnabled(false)
            guard self.read.readAvailable(), let result = self.read.result else {
                self.source?.setEnabled(true)
                return
            }
            arrived(result)
        }
    }
}
