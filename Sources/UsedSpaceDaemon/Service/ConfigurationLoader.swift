import UsedSpaceCore
import UsedSpaceSystem

/// Reads the configuration file into settings, for start-up and for each reload.
struct ConfigurationLoader {
    let paths: DaemonPaths
    let options: DaemonOptions

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func load() throws(Failure) -> DaemonSettings {
        var settings = DaemonSettings()
        if !paths.configFile.isEmpty {
            do {
                let text = try FileContents.readText(paths.configFile, limit: ConfigFile.maximumSize)
                settings = try Configuration.parse(text).daemon
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
        return options.applied(to: settings)
    }
}
