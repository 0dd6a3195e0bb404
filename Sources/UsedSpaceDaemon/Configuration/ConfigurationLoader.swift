import UsedSpaceCore
import UsedSpaceSystem

/// Reads the configuration file into settings, for start-up and for each reload, with the
/// command line's options applied to its [daemon] part.
struct ConfigurationLoader {
    let paths: DaemonPaths
    let options: DaemonOptions

    /// How long the file's filesystem has to answer (a home on a dead network mount): the
    /// sample timeout of the command line, or its default.
    var readTimeoutMicroseconds: UInt64 { options.sampleTimeoutMicroseconds ?? DaemonSettings().sampleTimeoutMicroseconds }

    /// For a reload: the file, waited for up to the sample timeout (the user asked for it).
    func load() throws(ConfigurationRefusal) -> Configuration {
        guard !paths.configFile.isEmpty else { return defaults() }
        let read = IsolatedFileRead.start(paths.configFile, limit: ConfigFile.maximumSize)
        guard read.wait(microseconds: readTimeoutMicroseconds), let result = read.result else {
            throw ConfigurationRefusal(file: paths.configFile, line: 0, message: "cannot read it: \(FileReadError.timedOut(microseconds: readTimeoutMicroseconds))")
        }
        return try configuration(from: result).get()
    }

    enum Beginning {
        case loaded(Result<Configuration, ConfigurationRefusal>)
        /// Its filesystem did not answer by ConfigFile.answerDeadlineMicroseconds (a dead
        /// network home): run with the defaults, and take the file when it answers.
        case pending(IsolatedFileRead)
    }

    /// At start-up: the file, waited for only a moment, so that the daemon answers at once.
    func begin() -> Beginning {
        guard !paths.configFile.isEmpty else { return .loaded(.success(defaults())) }
        let read = IsolatedFileRead.start(paths.configFile, limit: ConfigFile.maximumSize)
        guard read.wait(microseconds: ConfigFile.answerDeadlineMicroseconds), let result = read.result else { return .pending(read) }
        return .loaded(configuration(from: result))
    }

    /// Why the daemon runs with the defaults while the file has not answered.
    var pendingProblem: String {
        "\(paths.configFile): cannot read it yet: \(FileReadError.timedOut(microseconds: ConfigFile.answerDeadlineMicroseconds)); "
            + "running with the default settings until it answers"
    }

    /// The configuration of a read of the file: none (the normal case: defaults and
    /// options) unless it was named on the command line.
    func configuration(from read: Result<[UInt8], FileReadError>) -> Result<Configuration, ConfigurationRefusal> {
        let text: String
        switch read {
        case .success(let bytes):
            text = String(decoding: bytes, as: UTF8.self)
        case .failure(let error):
            if error.isNotFound && !paths.configIsExplicit { return .success(defaults()) }
            return .failure(ConfigurationRefusal(file: paths.configFile, line: 0, message: "cannot read it: \(error)"))
        }
        do {
            var configuration = try Configuration.parse(text)
            configuration.daemon = options.applied(to: configuration.daemon)
            return .success(configuration)
        } catch {
            return .failure(ConfigurationRefusal(file: paths.configFile, line: error.line, column: error.column, message: error.message))
        }
    }

    /// The defaults with the command line's options: what runs while the file is refused.
    func defaults() -> Configuration {
        var configuration = Configuration()
        configuration.daemon = options.applied(to: configuration.daemon)
        return configuration
    }
}

/// Why the configuration file is not what runs, as a compiler says it: FILE:LINE: message
/// (line 0: the file as a whole, it cannot be read, or what it asks for cannot be set up).
struct ConfigurationRefusal: Error, Equatable, CustomStringConvertible {
    var file: String
    var line: Int
    /// The character the problem is at (a template), from 1.
    var column: Int? = nil
    var message: String

    var description: String {
        guard line > 0 else { return "\(file): \(message)" }
        return "\(file):\(line):" + (column.map { "\($0):" } ?? "") + " \(message)"
    }
}
