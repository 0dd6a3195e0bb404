import UsedSpaceCore
import UsedSpaceSystem

/// Reads the configuration file into settings, for start-up and for each reload.
struct ConfigurationLoader {
    let paths: DaemonPaths
    let options: DaemonOptions

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The configuration file with the command line's options applied to its [daemon] part.
    func load() throws(Failure) -> Configuration {
        var configuration = Configuration()
        if !paths.configFile.isEmpty {
            do {
                let text = try FileContents.readText(paths.configFile, limit: ConfigFile.maximumSize)
                configuration = try Configuration.parse(text)
            } catch let error as FileReadError {
                if case .system(let system) = error, system.isNotFound, !paths.configIsExplicit {
                    // No configuration file is the normal case: defaults and options.
                } else {
                    throw Failure(description: "\(paths.configFile): \(error)")
                }
            } catch {
                throw Failure(description: "\(paths.configFile): \(error)")
            }
        }
        configuration.daemon = options.applied(to: configuration.daemon)
        return configuration
    }
}
