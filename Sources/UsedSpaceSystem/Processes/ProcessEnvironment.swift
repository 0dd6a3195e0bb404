import CLinux
import UsedSpaceCore

/// The environment variables and well-known directories this program uses.
public enum ProcessEnvironment {
    /// The command line, the program's name first (CommandLine.arguments, which Embedded
    /// Swift does not have).
    public static var arguments: [String] {
        guard let values = clinux_arguments() else { return [] }
        return (0..<Int(clinux_argument_count())).map { values[$0].map { String(cString: $0) } ?? "" }
    }

    public static func value(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        let value = String(cString: raw)
        return value.isEmpty ? nil : value
    }

    /// `$HOME`, or the home directory /etc/passwd gives our uid when it is unset.
    ///
    /// Not getpwuid(3): in the statically linked client, glibc would load NSS modules
    /// (libnss_systemd) built for the shared libc, and crash. Users known only to LDAP or
    /// sssd need HOME set, which every login sets.
    public static var homeDirectory: String? {
        if let home = value("HOME") { return home }
        guard let passwd = try? FileContents.readText("/etc/passwd", limit: 16 << 20) else { return nil }
        return PasswordFile.homeDirectory(of: getuid(), in: passwd)
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
