import Foundation

/// A real X server (Xvfb) with a real i3 and i3bar running `usedspace watch --format i3bar`.
final class I3Desktop {
    static var available: Bool {
        ["Xvfb", "i3", "xdotool"].allSatisfy(Prerequisite.hasCommand)
    }

    let directory: String
    let display: String
    let output: String
    let log: String
    private var processes: [SpawnedProcess] = []

    init(statusCommand arguments: String, width: Int = 1000) throws {
        directory = try ScratchDirectory.make("i3bar")
        output = directory + "/watch.out"
        log = directory + "/i3.log"
        var free = 90
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(free)") || FileManager.default.fileExists(atPath: "/tmp/.X\(free)-lock") { free += 1 }
        display = ":\(free)"
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        environment["XDG_CONFIG_HOME"] = directory + "/config"
        environment["USEDSPACE_SOCKET"] = directory + "/no-daemon.sock"
        processes.append(try SpawnedProcess(Self.path("Xvfb"), [display, "-screen", "0", "\(width)x60x24", "-nolisten", "tcp"],
                                            environment: environment, logFile: directory + "/xvfb.log"))
        guard waitUntil(seconds: 10, { FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(free)") }) else {
            throw HarnessFailure("Xvfb did not start")
        }
        // The watch's output is copied to a file so the test sees exactly what i3bar got.
        let command = "\(CommandRunner.usedspace) watch --format i3bar \(arguments) 2>>\(directory)/watch.err | tee \(output)"
        let config = """
            # i3 config file (v4)
            font pango:DejaVu Sans Mono 11
            bar {
              status_command \(command)
              position top
              tray_output none
            }
            """
        try config.write(toFile: directory + "/i3.config", atomically: true, encoding: .utf8)
        processes.append(try SpawnedProcess(Self.path("i3"), ["-c", directory + "/i3.config"], environment: environment, logFile: log))
    }

    static func path(_ command: String) -> String {
        ["/usr/bin/", "/usr/local/bin/", "/bin/"].map { $0 + command }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? command
    }

    var watchOutput: [String] {
        ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    var i3Log: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    func click(x: Int, button: Int) throws {
        let result = try CommandRunner.run(Self.path("xdotool"), ["mousemove", String(x), "9", "click", String(button)],
                                           environment: ["DISPLAY": display])
        guard result.status == 0 else { throw HarnessFailure("xdotool: \(result.stderr)") }
    }

    deinit {
        for process in processes.reversed() { process.stop(seconds: 5) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
