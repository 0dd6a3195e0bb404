import Foundation

/// usedspaced started directly (not by systemd): for what only a direct start shows (the
/// socket it binds itself, its command line, a run under strace). What the daemon serves is
/// checked on UserServiceDaemon, the daemon as users run it.
final class DaemonProcess: TestedDaemon {
    let process: Process
    let directory: String
    let socketPath: String
    let stateDirectory: String
    private let errors = Pipe()
    let stderrText = Locked("")

    /// `arguments` come after --socket and --state-dir, which point into a fresh directory.
    init(arguments: [String], environment extra: [String: String] = [:], socketPath: String? = nil, stateDirectory: String? = nil) throws {
        directory = try ScratchDirectory.make("daemon")
        self.socketPath = socketPath ?? directory + "/usedspace.sock"
        self.stateDirectory = stateDirectory ?? directory + "/state"
        process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRunner.usedspaced)
        process.arguments = ["--socket", self.socketPath, "--state-dir", self.stateDirectory] + arguments
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("NOTIFY_") || key.hasPrefix("LISTEN_") || key.hasPrefix("WATCHDOG_") || key == "JOURNAL_STREAM" {
            environment[key] = nil
        }
        environment["XDG_CONFIG_HOME"] = directory + "/config"
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let sink = stderrText
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if !data.isEmpty { sink.update { $0 += String(decoding: data, as: UTF8.self) } }
        }
        try process.run()
    }

    /// Waits until the daemon answers `ping`.
    func waitUntilAnswering(seconds: Double = 15) throws {
        let answered = waitUntil(seconds: seconds) {
            guard let client = try? ProtocolClient(path: socketPath) else { return false }
            return (try? client.request("ping", timeout: 1))?.lines == ["pong"]
        }
        guard answered else { throw HarnessFailure("usedspaced did not answer; stderr: \(stderrText.value)") }
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    var pid: pid_t? { process.isRunning ? process.processIdentifier : nil }
    var isRunning: Bool { process.isRunning }
    var log: Locked<String> { stderrText }
    var home: String { userHome }

    func client() throws -> ProtocolClient { try ProtocolClient(path: socketPath) }

    /// The client against this daemon's socket.
    func usedspace(_ arguments: [String], environment extra: [String: String] = [:], stdin: Data? = nil,
                   timeout: TimeInterval = 30) throws -> CommandResult {
        var environment = ["USEDSPACE_SOCKET": socketPath, "HOME": userHome, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        for (key, value) in extra { environment[key] = value }
        return try CommandRunner.run(CommandRunner.usedspace, arguments, environment: environment, stdin: stdin, timeout: timeout)
    }

    func watch(_ arguments: [String], environment extra: [String: String]) throws -> WatchProcess {
        var environment = ["USEDSPACE_SOCKET": socketPath, "HOME": userHome, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        for (key, value) in extra { environment[key] = value }
        return try WatchProcess(arguments, environment: environment)
    }

    /// Sends SIGTERM and returns the exit status.
    @discardableResult
    func stop() -> Int32? { stop(seconds: 10) }

    @discardableResult
    func stop(seconds: Double) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        signal(SIGTERM)
        guard waitUntil(seconds: seconds, { !self.process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    /// Resident memory in KiB, from /proc.
    var residentKilobytes: Int? {
        guard let status = readProcFile("/proc/\(process.processIdentifier)/status") else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        errors.fileHandleForReading.readabilityHandler = nil
        try? FileManager.default.removeItem(atPath: directory)
    }
}
