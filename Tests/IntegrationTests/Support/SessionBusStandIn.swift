import Foundation

/// A Python stand-in from Tests/Fixtures, run as `manager`'s user on its session bus, for
/// what the real program never does; returned once it owns `name` on that bus.
enum SessionBusStandIn {
    static func start(_ fixture: String, _ arguments: [String], owning name: String, session manager: SystemdUserManager,
                      log: String) throws -> SpawnedProcess {
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        if let user = manager.user { chown(log, user.uid, user.gid) }
        let user = manager.userCommand
        let process = try SpawnedProcess(user.executable, user.arguments + ["/usr/bin/python3", DesktopBuild.repository.path + "/Tests/Fixtures/" + fixture] + arguments,
                                         environment: manager.environment, logFile: log)
        let owned = waitUntil(seconds: 10) {
            (try? manager.runAsUser("/usr/bin/busctl", ["--user", "status", name]))?.status == 0
        }
        guard owned else {
            process.stop(seconds: 5)
            throw HarnessFailure("\(fixture) did not take \(name): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        return process
    }
}
