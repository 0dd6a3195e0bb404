import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// What a valid configuration will still fail at when it runs, found before it does: watched
/// paths that do not exist or cannot be measured now, and a Prometheus textfile directory
/// that cannot be written, by the user or inside usedspace.service's sandbox (which can
/// write only its state directory unless a drop-in says more).
enum RuntimeChecks {
    /// How long a watched path's filesystem has to answer (a dead network mount).
    static let sampleTimeoutMilliseconds: Int32 = 5000

    static func problems(_ configuration: Configuration, file: ConfigFile, home: String?) -> [ConfigError] {
        var problems: [ConfigError] = []
        let pathLines = file.entries.filter { $0.section == "daemon" && $0.key == "path" && $0.value != DaemonSettings.automaticPath }.map { $0.line }
        for (index, path) in configuration.daemon.paths.enumerated() {
            let line = index < pathLines.count ? pathLines[index] : 0
            guard let expanded = DaemonSettings.expand(path, home: home) else {
                problems.append(ConfigError(line: line, message: "path: '\(path)' needs HOME, which is not set"))
                continue
            }
            let snapshot = IsolatedSample.snapshot(expanded, timeoutMilliseconds: sampleTimeoutMilliseconds)
            if snapshot.state == .failed, let error = snapshot.error {
                problems.append(ConfigError(line: line, message: "path: \(ControlCharacters.replaced(in: error)); the daemon will show it as failed until that changes"))
            }
        }
        if let configured = configuration.daemon.textfileDirectory {
            let line = file.entries.last { $0.section == "prometheus" && $0.key == "textfile-dir" }?.line ?? 0
            if let problem = textfileProblem(configured, home: home) {
                problems.append(ConfigError(line: line, message: "textfile-dir: " + problem))
            }
        }
        return problems
    }

    /// Why the daemon would fail to keep DIR/usedspace.prom, or nil.
    static func textfileProblem(_ configured: String, home: String?) -> String? {
        guard let directory = DaemonSettings.expand(configured, home: home) else { return "'\(configured)' needs HOME, which is not set" }
        let mounts = (try? MountTable.read()) ?? []
        if let mount = MountLocator.mount(containing: LexicalPath.normalize(directory, currentDirectory: "/"), in: mounts),
           pseudoFileSystems.contains(mount.fileSystemType) {
            return "\(directory) is on \(mount.fileSystemType) (\(mount.mountPoint)), where no file can be created; choose the node exporter's textfile directory"
        }
        // The daemon creates missing directories: what matters is the nearest one that exists.
        var existing = directory
        while FileStatus.exists(existing) == false, let slash = existing.lastIndex(of: "/"), existing != "/" {
            existing = slash == existing.startIndex ? "/" : String(existing[..<slash])
        }
        guard let status = try? FileStatus.of(existing), status.isDirectory else {
            return "\(existing) is not a directory"
        }
        if access(existing, W_OK) != 0 {
            return "\(existing) is not writable by you (\(SystemError(call: "access", errno: clinux_errno()).message)); make it so, or choose another directory"
        }
        let writable = ServiceSandbox.writablePaths(home: home)
        guard writable.contains(where: { directory == $0 || directory.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) else {
            return "usedspace.service (ProtectSystem=strict, ProtectHome=read-only) cannot write \(directory): "
                + "add a drop-in with `systemctl --user edit usedspace.service` that says [Service] ReadWritePaths=\(directory), "
                + "then systemctl --user restart usedspace"
        }
        return nil
    }

    static let pseudoFileSystems: Set<String> = ["proc", "sysfs", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs",
                                                 "devpts", "mqueue", "bpf", "pstore", "configfs", "fusectl", "efivarfs"]
}

/// What the shipped usedspace.service may write: its state directory
/// (ReadWritePaths=-%h/.local/state/usedspace), and whatever ReadWritePaths= its drop-ins add.
enum ServiceSandbox {
    static func writablePaths(home: String?) -> [String] {
        var paths: [String] = []
        if let home { paths.append(home + "/.local/state/usedspace") }
        var directories = ["/etc/systemd/user/usedspace.service.d"]
        if let configHome = ProcessEnvironment.xdgDirectory("XDG_CONFIG_HOME", fallback: ".config") {
            directories.append(configHome + "/systemd/user/usedspace.service.d")
        }
        if let dataHome = ProcessEnvironment.xdgDirectory("XDG_DATA_HOME", fallback: ".local/share") {
            directories.append(dataHome + "/systemd/user/usedspace.service.d")
        }
        for directory in directories {
            for name in DirectoryListing.names(in: directory) where name.hasSuffix(".conf") {
                guard let text = try? FileContents.readText(directory + "/" + name, limit: 1 << 20) else { continue }
                paths += readWritePaths(in: text, home: home)
            }
        }
        return paths
    }

    /// The paths of the ReadWritePaths= lines of a unit file's [Service] section, `%h`
    /// expanded and the "-" and "+" prefixes removed.
    static func readWritePaths(in text: String, home: String?) -> [String] {
        var paths: [String] = []
        var section = ""
        for rawLine in text.split(separator: "\n") {
            let line = rawLine.trimmingBlanks
            if line.hasPrefix("[") { section = String(line); continue }
            guard section == "[Service]", line.hasPrefix("ReadWritePaths=") else { continue }
            let value = line.dropFirst("ReadWritePaths=".count)
            if value.isEmpty { paths.removeAll(); continue } // an empty assignment resets the list
            for word in value.split(separator: " ") {
                var path = String(word.drop(while: { $0 == "-" || $0 == "+" }))
                if let home { path = path.replacingHomeSpecifier(with: home) }
                paths.append(path)
            }
        }
        return paths
    }
}

private extension Substring {
    var trimmingBlanks: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}

private extension String {
    func replacingHomeSpecifier(with home: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let index = rest.firstIndex(of: "%") {
            result += rest[..<index]
            let next = rest.index(after: index)
            if next < rest.endIndex, rest[next] == "h" {
                result += home
                rest = rest[rest.index(after: next)...]
            } else {
                result.append("%")
                rest = rest[next...]
            }
        }
        return result + rest
    }
}
