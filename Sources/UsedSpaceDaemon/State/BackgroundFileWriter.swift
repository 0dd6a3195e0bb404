import UsedSpaceSystem

/// Replaces a file atomically on a background thread (fsync can take long, or hang on a
/// network home), newest contents winning. A failure (full disk, read-only directory) is
/// logged once, with the reason, until a write succeeds again; nothing else stops.
final class BackgroundFileWriter: FileKeeper {
    let path: String
    private let what: String
    private let logger: Logger
    private let writer: BackgroundWorker<String, Result<Void, SystemError>>
    private var source: IOEventSource?
    /// The last write failed (and was logged); cleared by one that succeeds.
    private(set) var isFailing = false

    /// `what` names the file in log messages ("the state file"); `mode` is its permissions
    /// (private by default).
    init(path: String, what: String, mode: UInt32 = 0o600, loop: EventLoop, logger: Logger) throws(SystemError) {
        self.path = path
        self.what = what
        self.logger = logger
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let made = DirectoryMade()
        writer = try BackgroundWorker { contents in
            Result { () throws(SystemError) in
                // Made at the first write, and again only when it has gone (a failed write).
                if !made.value { try AtomicFile.makeDirectories(directory) }
                made.value = true
                do throws(SystemError) {
                    try AtomicFile.write(contents, to: path, mode: mode)
                } catch {
                    made.value = false
                    throw error
                }
            }
        }
        source = try IOEventSource(loop: loop, descriptor: writer.wake.descriptor, events: IOEvents.readable) { [unowned(unsafe) self] _ in
            self.collectResults()
        }
    }

    deinit {
        // The source first: it must not outlive the descriptor it watches.
        source = nil
    }

    func write(_ contents: String) {
        do {
            try writer.submit(contents)
        } catch {
            reportFailure(error)
        }
    }

    /// Whether a write is still queued or running (so a stopping daemon can wait for it).
    var isWriting: Bool { writer.isBusy }

    private func collectResults() {
        for result in writer.takeOutputs() {
            switch result {
            case .success:
                if isFailing {
                    logger.notice("\(what) is being saved again: \(path)", metadata: ["file": "\(path)"])
                    isFailing = false
                }
            case .failure(let error):
                reportFailure(error)
            }
        }
    }

    private func reportFailure(_ error: SystemError) {
        guard !isFailing else { return }
        isFailing = true
        logger.error("cannot save \(what) \(path): \(error); serving from memory, and not logging this again until a save succeeds",
                     metadata: ["file": "\(path)", "reason": "\(error)"])
    }
}

/// Whether the worker thread made the file's directory already (only that thread uses it).
private final class DirectoryMade: @unchecked Sendable {
    var value = false
}
