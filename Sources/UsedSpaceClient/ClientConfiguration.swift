import UsedSpaceCore
import UsedSpaceSystem

/// The [bar] settings of the configuration file, for `watch` and the bar formats of
/// `status`. A broken file is reported on stderr and the defaults are used: a status bar
/// should show the disk, not nothing.
enum ClientConfiguration {
    static var defaultPath: String? {
        ProcessEnvironment.xdgDirectory("XDG_CONFIG_HOME", fallback: ".config").map { $0 + "/usedspace/config" }
    }

    /// The configuration at `explicitPath` (which must exist) or the default path (which may not).
    static func load(explicitPath: String?) -> (configuration: Configuration, problem: String?) {
        guard let path = explicitPath ?? defaultPath else { return (Configuration(), nil) }
        do {
            let text = try FileContents.readText(path, limit: ConfigFile.maximumSize)
            return (try Configuration.parse(text), nil)
        } catch let error as FileReadError {
            if case .system(let system) = error, system.isNotFound, explicitPath == nil { return (Configuration(), nil) }
            return (Configuration(), "\(path): \(error); using the default bar settings")
        } catch {
            return (Configuration(), "\(path): \(error); using the default bar settings")
        }
    }
}
