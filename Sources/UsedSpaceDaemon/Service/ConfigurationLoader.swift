import UsedSpaceCore
import UsedSpaceSystem

/// Reads the configuration file into settings, for start-up and for each reload, with the
/// command line's options applied to its [daemon] part.
struct ConfigurationLoader {
    let paths: DaemonPaths
    let options: DaemonOptions

    /// Why the file was refused, as a compiler says it: FILE:LINE: message.
    struct Failure: Error, Equatable, CustomStringConvertible {
        var file: String
        /// 0 for the file as a whole (it cannot be read, it is too large).
        var line: Int
        /// The character the problem is at (a template), from 1.
        var column: Int? = nil
        var message: String

        var description: String {
            guard line > 0 else { return "\(file): \(message)" }
            return "\(file):\(line):" + (column.map { "\($0):" } ?? "") + " \(message)"
        }
    }

    /// How long the file's filesystem has to answer (a home on a dead network mount): the
    /// sample timeout of the command line, or its default.
    var readTimeoutMicroseconds: UInt64 { options.sampleTimeoutMicroseconds ?? DaemonSettings().sampleTimeoutMicroseconds }

    func load() throws(Failure) -> Configuration {
        var configuration = Configuration()
        if let text = try readFile() {
            do {
                configuration = try Configuration.parse(text)
            } catch {
                throw Failure(file: paths.configFile, line: error.line, column: error.column, message: error.message)
            }
        }
        configuration.daemon = options.applied(to: configuration.daemon)
        return configuration
    }

    /// The file's text; nil when there is none, which is the normal case (defaults and
    /// options), unless it was named on the command line.
    private func readFile() throws(Failure) -> String? {
        guard !paths.configFile.isEmpty else { return nil }
        do {
            return try IsolatedFileRead.readText(paths.configFile, limit: ConfigFile.maximumSize, timeoutMicroseconds: readTimeoutMicroseconds)
        } catch {
            if error.isNotFound && !paths.configIsExplicit { return nil }
            throw Failure(file: paths.configFile, line: 0, message: "cannot read it: \(error)")
        }
    }

    /// The defaults with the command line's options: what runs while the file is refused.
    func defaults() -> Configuration {
        var configuration = Configuration()
        configuration.daemon = options.applied(to: configuration.daemon)
        return configuration
    }
}
