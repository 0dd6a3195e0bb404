import Foundation

/// Runs the project's built binaries, and other programs, as a user would.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var stderrLines: [Substring] { stderr.split(separator: "\n") }
}

enum CommandRunner {
    /// The directory of `swift test`'s own build: the test bundle sits beside its products.
    static let testBuildDirectory: URL = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent()
    }()

    /// The directory of the usedspace and usedspaced under test: USEDSPACE_BIN_DIR when set
    /// (the binaries as shipped, e.g. `make`'s lean ones in .build-make/release, which .ci/run
    /// passes after `make deb`), otherwise those `swift test` built beside the test bundle.
    static let productsDirectory: URL = {
        if let directory = ProcessInfo.processInfo.environment["USEDSPACE_BIN_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        }
        return testBuildDirectory
    }()

    static var usedspace: String { productsDirectory.appendingPathComponent("usedspace").path }
    static var usedspaced: String { productsDirectory.appendingPathComponent("usedspaced").path }

    @discardableResult
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        stdin: Data? = nil, timeout: TimeInterval = 30
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        // Read both pipes while the process runs so that neither can fill up and block it.
        let outData = Locked(Data()), errData = Locked(Data())
        let group = DispatchGroup()
        for (pipe, sink) in [(output, outData), (errors, errData)] {
            group.enter()
            DispatchQueue.global().async {
                sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
                group.leave()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw CommandTimeout(command: ([executable] + arguments).joined(separator: " "), seconds: timeout)
        }
        process.waitUntilExit()
        group.wait()
        return CommandResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData.value, as: UTF8.self),
            stderr: String(decoding: errData.value, as: UTF8.self)
        )
    }

    /// Runs a shell command line, failing the test if it fails.
    @discardableResult
    static func shell(_ command: String, timeout: TimeInterval = 60) throws -> String {
        let result = try run("/bin/sh", ["-c", command], timeout: timeout)
        guard result.status == 0 else { throw ShellFailure(command: command, result: result) }
        return result.stdout
    }
}

struct CommandTimeout: Error, CustomStringConvertible {
    var command: String
    var seconds: TimeInterval
    var description: String { "\(command) did not finish within \(seconds) s" }
}

struct ShellFailure: Error, CustomStringConvertible {
    var command: String
    var result: CommandResult
    var description: String { "`\(command)` exited \(result.status): \(result.stderr)" }
}

final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.lock(); defer { lock.unlock() }; return stored }
    func set(_ value: Value) { lock.lock(); stored = value; lock.unlock() }
    func update<T>(_ body: (inout Value) throws -> T) rethrows -> T { lock.lock(); defer { lock.unlock() }; return try body(&stored) }
}

/// The whole of a /proc file. (String(contentsOfFile:) stops at the first 4 KiB of one:
/// such files report a size of 0 and are read in one go.)
func readProcFile(_ path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
}
