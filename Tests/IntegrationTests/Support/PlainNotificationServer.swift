import Foundation

/// A notification server that does not read markup (Tests/Fixtures/plain-notification-server.py),
/// on the session bus of a user manager, as its user: what it was given, as it was given.
final class PlainNotificationServer {
    static let fixture = DesktopBuild.repository.path + "/Tests/Fixtures/plain-notification-server.py"

    private let shownFile: String
    private let process: SpawnedProcess

    init(session manager: SystemdUserManager, scratch: ScratchDirectory) throws {
        let bus = try manager.systemctl("start", "dbus.socket")
        guard bus.status == 0 else { throw HarnessFailure("dbus.socket: \(bus.stderr)") }
        shownFile = scratch.subpath("plain-notifications")
        let log = scratch.subpath("plain-notification-server.log")
        for file in [shownFile, log] {
            _ = FileManager.default.createFile(atPath: file, contents: nil)
            if let user = manager.user { chown(file, user.uid, user.gid) }
        }
        let user = manager.userCommand
        process = try SpawnedProcess(user.executable, user.arguments + ["/usr/bin/python3", Self.fixture, shownFile],
                                     environment: manager.environment, logFile: log)
        let owned = waitUntil(seconds: 10) {
            (try? manager.runAsUser("/usr/bin/busctl", ["--user", "status", "org.freedesktop.Notifications"]))?.status == 0
        }
        guard owned else { throw HarnessFailure("the plain server did not take the name: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")") }
    }

    /// Summaries and bodies, in the order they came.
    var shown: [(summary: String, body: String)] {
        ((try? String(contentsOfFile: shownFile, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                  let summary = object["summary"], let body = object["body"] else { return nil }
            return (summary, body)
        }
    }

    deinit { process.stop(seconds: 5) }
}
