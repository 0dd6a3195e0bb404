import Glibc

/// The environment variables and well-known directories this program uses.
public enum ProcessEnvironment {
    public static func value(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        let value = String(cString: raw)
        return value.isEmpty ? nil : value
    }

    /// `$HOME`, or the password database's home directory when it is unset.
    public static var homeDirectory: String? {
        if let home = value("HOME") { return home }
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.isEmpty ? nil : home
    }

    /// An XDG base directory (`XDG_STATE_HOME` etc.): only an absolute value counts, as the
    /// specification says; otherwise `$HOME/fallback`.
    public static func xdgDirectory(_ variable: String, fallback: String) -> String? {
        if let value = value(variable), value.hasPrefix("/") { return value }
        return homeDirectory.map { $0 + "/" + fallback }
    }

    public static var runtimeDirectory: String? {
        guard let value = value("XDG_RUNTIME_DIR"), value.hasPrefix("/") else { return nil }
        return value
    }
}
