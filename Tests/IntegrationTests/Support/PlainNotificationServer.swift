import Foundation

/// A notification server that does not read markup (Tests/Fixtures/plain-notification-server.py),
/// on the session bus of a user manager, as its user: what it was given, as it was given.
final class PlainNotificationServer {
    private let shownFile: String
    private let process: SpawnedProcess

    init(session manager: SystemdUserManager, scratch: ScratchDirectory) throws {
        let bus = try manager.systemctl("start", "dbus.socket")
        guard bus.status == 0 else { throw HarnessFailure("dbus.socket: \(bus.stderr)") }
        shownFile = scratch.subpath("plain-notifications")
        _ = FileManager.default.createFile(atPath: shownFile, contents: nil)
        if let user = manager.user { chown(shownFile, user.uid, user.gid) }
        process = try SessionBusStandIn.start("plain-notification-server.py", [shownFile], owning: "org.freedesktop.Notifications",
                                              session: manager, log: scratch.subpath("plain-notification-server.log"))
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
