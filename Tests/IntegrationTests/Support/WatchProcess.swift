import Foundation

/// `usedspace watch` running with pipes on all three streams, its output collected line by
/// line as it arrives.
final class WatchProcess {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let received = Locked([String]())
    /// When each line arrived, in the order of `lines`.
    private let arrived = Locked([Date]())
    private let partial = Locked(Data())
    let stderrText = Locked("")

    convenience init(_ arguments: [String], environment: [String: String]) throws {
        try self.init(ClientCommand(executable: CommandRunner.usedspace, arguments: ["watch"] + arguments, environment: environment))
    }

    /// A client command line that runs `watch` (TestedDaemon.watch).
    init(_ command: ClientCommand) throws {
        process.executableURL = URL(fileURLWithPath: command.executable)
        process.arguments = command.arguments
        process.environment = command.environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let lines = received, pending = partial, arrivals = arrived
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else { return }
            pending.update { buffer in
                buffer.append(data)
                while let newline = buffer.firstIndex(of: 10) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    arrivals.update { $0.append(Date()) }
                    lines.update { $0.append(line) }
                }
            }
        }
        let sink = stderrText
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if !data.isEmpty { sink.update { $0 += String(decoding: data, as: UTF8.self) } }
        }
        try process.run()
    }

    var lines: [String] { received.value }

    /// The lines with when each arrived.
    var timedLines: [(line: String, at: Date)] {
        let times = arrived.value
        return zip(received.value, times).map { ($0, $1) }
    }

    /// Waits for a line after the first `after` lines that satisfies `predicate`.
    @discardableResult
    func waitForLine(after: Int = 0, timeout: Double = 10, _ predicate: (String) -> Bool = { _ in true }) throws -> String {
        var found: String?
        let ok = waitUntil(seconds: timeout) {
            found = self.lines.dropFirst(after).first(where: predicate)
            return found != nil
        }
        guard ok, let found else {
            throw HarnessFailure("no matching line from watch within \(timeout) s; got \(lines); stderr: \(stderrText.value)")
        }
        return found
    }

    /// The JSON object of a line.
    static func json(_ line: String) -> [String: Any]? {
        let trimmed = line.hasPrefix(",") ? String(line.dropFirst()) : line
        return try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any]
    }

    func write(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    func writeBytes(_ bytes: [UInt8]) {
        input.fileHandleForWriting.write(Data(bytes))
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Closes the reading end of the watch's stdout, as a bar that died does.
    func closeOutput() {
        output.fileHandleForReading.readabilityHandler = nil
        try? output.fileHandleForReading.close()
    }

    /// Voluntary plus involuntary context switches so far: how often it woke up.
    var contextSwitches: Int? {
        guard let status = readProcFile("/proc/\(process.processIdentifier)/status") else { return nil }
        return status.split(separator: "\n").filter { $0.contains("ctxt_switches") }
            .compactMap { Int($0.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") }.reduce(0, +)
    }

    deinit {
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
