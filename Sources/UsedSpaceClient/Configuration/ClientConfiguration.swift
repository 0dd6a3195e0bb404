import UsedSpaceCore
import UsedSpaceSystem

/// The configuration file as the client reads it: the [bar] settings for `watch` and the
/// bar formats of `status`, the [daemon] paths for `--all`. A broken file is reported on
/// stderr and the defaults are used: a status bar should show the disk, not nothing. A file
/// whose filesystem does not answer within ConfigFile.answerDeadlineMicroseconds (a home
/// on a dead network mount) is not waited for: `status` goes on with the defaults, `watch`
/// shows them until the file arrives (Pending).
enum ClientConfiguration {
    static var defaultPath: String? {
        ProcessEnvironment.xdgDirectory("XDG_CONFIG_HOME", fallback: ".config").map { $0 + "/usedspace/config" }
    }

    typealias Loaded = (configuration: Configuration, problem: String?)

    /// The configuration at `explicitPath` (which must exist) or the default path (which may not).
    static func load(explicitPath: String?) -> Loaded {
        switch begin(explicitPath: explicitPath) {
        case .loaded(let loaded): return loaded
        case .pending(let pending): return (Configuration(), pending.waitingLine)
        }
    }

    enum Beginning {
        case loaded(Loaded)
        /// Not there by the deadline: the defaults meanwhile.
        case pending(Pending)
    }

    /// Starts reading, and waits for the file up to the deadline.
    static func begin(explicitPath: String?) -> Beginning {
        guard let path = explicitPath ?? defaultPath else { return .loaded((Configuration(), nil)) }
        let read = IsolatedFileRead.start(path, limit: ConfigFile.maximumSize)
        let pending = Pending(path: path, explicit: explicitPath != nil, read: read)
        guard read.wait(microseconds: ConfigFile.answerDeadlineMicroseconds), let loaded = pending.loaded else { return .pending(pending) }
        return .loaded(loaded)
    }

    /// A read of the file that has not answered yet: poll `descriptor`, then `take`.
    final class Pending {
        let path: String
        private let explicit: Bool
        private let read: IsolatedFileRead

        init(path: String, explicit: Bool, read: IsolatedFileRead) {
            self.path = path
            self.explicit = explicit
            self.read = read
        }

        var descriptor: Int32? { read.descriptor }

        /// What stderr says while the defaults are shown.
        var waitingLine: String {
            "cannot read \(path) yet: \(FileReadError.timedOut(microseconds: ConfigFile.answerDeadlineMicroseconds)); using the default settings until it answers"
        }

        /// The configuration once the file has answered (read what arrived first); nil before.
        func take() -> Loaded? {
            read.readAvailable()
            return loaded
        }

        fileprivate var loaded: Loaded? {
            guard let result = read.result else { return nil }
            let text: String
            switch result {
            case .success(let bytes):
                text = String(decoding: bytes, as: UTF8.self)
            case .failure(let error):
                if error.isNotFound && !explicit { return (Configuration(), nil) }
                return (Configuration(), "cannot read \(path): \(error); using the default settings")
            }
            do {
                return (try Configuration.parse(text), nil)
            } catch {
                return (Configuration(), "\(path):\(error.position) \(error.message); using the default settings (check it: usedspace config check)")
            }
        }
    }
}
