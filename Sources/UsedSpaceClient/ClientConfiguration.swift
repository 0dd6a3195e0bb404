import UsedSpaceCore
import UsedSpaceSystem

/// The configuration file as the client reads it: the [bar] settings for `watch` and the
/// bar formats of `status`, the [daemon] paths for `--all`. A broken file is reported on
/// stderr and the defaults are used: a status bar should show the disk, not nothing. A file
/// on a filesystem that hangs is given up on after the command's timeout.
enum ClientConfiguration {
    static var defaultPath: String? {
        ProcessEnvironment.xdgDirectory("XDG_CONFIG_HOME", fallback: ".config").map { $0 + "/usedspace/config" }
    }

    /// The configuration at `explicitPath` (which must exist) or the default path (which may not).
    static func load(explicitPath: String?, timeoutMicroseconds: UInt64) -> (configuration: Configuration, problem: String?) {
        guard let path = explicitPath ?? defaultPath else { return (Configuration(), nil) }
        let text: String
        do {
            text = try IsolatedFileRead.readText(path, limit: ConfigFile.maximumSize, timeoutMicroseconds: timeoutMicroseconds)
        } catch {
            if error.isNotFound && explicitPath == nil { return (Configuration(), nil) }
            return (Configuration(), "cannot read \(path): \(error); using the default settings")
        }
        do {
            return (try Configuration.parse(text), nil)
        } catch {
            return (Configuration(), "\(path):\(error.position) \(error.message); using the default settings (check it: usedspace config check)")
        }
    }
}
