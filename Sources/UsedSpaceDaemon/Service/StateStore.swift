import Logging
import UsedSpaceCore
import UsedSpaceSystem

/// Keeps the published snapshots on disk so a restarted daemon can serve them at once.
/// Writes happen on a background thread (fsync may take long, or hang on a network home),
/// newest-wins, each one atomic. A failure (full disk, read-only directory) is logged once
/// until a write succeeds again; the daemon goes on serving from memory.
final class StateStore {
    let directory: String
    var filePath: String { directory + "/state.json" }
    private let logger: Logger
    private let wake: EventCounter
    private let writer: BackgroundWorker<String, Result<Void, SystemError>>
    private var source: IOEventSource?
    private var failing = false

    init(directory: String, loop: EventLoop, logger: Logger) throws {
        self.directory = directory
        self.logger = logger
        let wake = try EventCounter()
        self.wake = wake
        let directoryPath = directory
        let file = directory + "/state.json"
        writer = BackgroundWorker(wake: wake) { contents in
            Result { () throws(SystemError) in
                try AtomicFile.makeDirectories(directoryPath)
                try AtomicFile.write(contents, to: file)
            }
        }
        source = try IOEventSource(loop: loop, descriptor: wake.descriptor, events: IOEvents.readable) { [unowned self] _ in
            self.collectResults()
        }
    }

    /// Reads the snapshots of an earlier run. A missing file is the first run; a corrupt or
    /// foreign one is reported and then replaced by the next save.
    func load() -> [Snapshot] {
        let text: String
        do {
            text = try FileContents.readText(filePath, limit: StateFile.maximumSize)
        } catch {
            if case .system(let system) = error, system.isNotFound { return [] }
            logger.warning("cannot read the state file; starting without the last snapshots, the file will be replaced",
                           metadata: ["state_file": "\(filePath)", "reason": "\(error)"])
            return []
        }
        do {
            let contents = try StateFile.decode(text)
            for problem in contents.problems {
                logger.warning("skipping a snapshot in the state file", metadata: ["state_file": "\(filePath)", "reason": "\(problem)"])
            }
            return contents.snapshots
        } catch {
            logger.warning("ignoring the state file; it will be replaced",
                           metadata: ["state_file": "\(filePath)", "reason": "\(error)"])
            return []
        }
    }

    func save(_ snapshots: [Snapshot]) {
        do {
            try writer.submit(StateFile.encode(snapshots))
        } catch {
            reportFailure(error)
        }
    }

    /// Whether a save is still queued or running (so a stopping daemon can wait for it).
    var isSaving: Bool { writer.isBusy }

    private func collectResults() {
        wake.drain()
        for result in writer.takeOutputs() {
            switch result {
            case .success:
                if failing {
                    logger.notice("the state file is being saved again", metadata: ["state_file": "\(filePath)"])
                    failing = false
                }
            case .failure(let error):
                reportFailure(error)
            }
        }
    }

    private func reportFailure(_ error: SystemError) {
        guard !failing else { return }
        failing = true
        logger.error("cannot save the state file; serving from memory, and not logging this again until a save succeeds",
                     metadata: ["state_file": "\(filePath)", "reason": "\(error)"])
    }
}
