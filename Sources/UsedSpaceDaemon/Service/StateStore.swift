import Logging
import UsedSpaceCore
import UsedSpaceSystem

/// Keeps the published snapshots on disk so a restarted daemon can serve them at once.
final class StateStore {
    let directory: String
    var filePath: String { directory + "/state.json" }
    private let logger: Logger
    private let writer: BackgroundFileWriter

    init(directory: String, loop: EventLoop, logger: Logger) throws {
        self.directory = directory
        self.logger = logger
        writer = try BackgroundFileWriter(path: directory + "/state.json", what: "the state file", loop: loop, logger: logger)
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
        writer.write(StateFile.encode(snapshots))
    }

    var isSaving: Bool { writer.isWriting }
}
