import Foundation
import Testing

/// The daemon's time-to-full estimate from a history it finds on disk (three days of steady
/// growth, written as the daemon itself writes it) and a real filesystem whose free space
/// continues that trend. The daemon runs as users run it (UserServiceDaemon: socket-activated
/// under the shipped unit in the user's manager); the history is in the user's state directory.
@Suite(Prerequisite.root, Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct TimeToFullServiceTests {
    @Test func aSteadilyFillingFilesystemGetsARangeEverywhere() throws {
        let scratch = try ScratchDirectory("ttf")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        try Data(count: 60 << 20).write(to: URL(fileURLWithPath: mount + "/data"))
        var info = statvfs()
        statvfs(mount, &info)
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        // Growth that would fill it in two days: free(t) = free + rate · (now − t).
        let now = Int64(Date().timeIntervalSince1970)
        let rate = Double(free) / (2 * 86_400)
        let points = stride(from: now - 3 * 86_400, to: now - 60, by: 900).map { time in
            "[\(time),\(free + Int64(rate * Double(now - time)))]"
        }
        let encodedPath = mount.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "/-._~"))) ?? mount

        // The textfile directory is opened in a drop-in, as usedspaced(8) tells users.
        let metrics = scratch.subpath("metrics")
        try FileManager.default.createDirectory(atPath: metrics, withIntermediateDirectories: true)
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "200ms", "--textfile-dir", metrics],
                                           dropIn: "ReadWritePaths=\(metrics)")
        try daemon.manager.giveToUser(metrics)
        // Before the first client starts the service.
        try daemon.writeState("history", "usedspace-history 1\n\(encodedPath)\t{\"version\":1,\"points\":[\(points.joined(separator: ","))]}\n")
        let state = daemon.stateDirectory
        try daemon.waitUntilAnswering()
        let json = try #require(try daemon.client().request("status json").json)
        let range = try #require(json["time_to_full"] as? [String: Any], "\(json)")
        let lower = try #require(range["lower_seconds"] as? Int), upper = try #require(range["upper_seconds"] as? Int)
        #expect(lower <= 2 * 86_400 + 3600 && upper >= 2 * 86_400 - 3600, "\(lower)…\(upper) should contain two days")
        #expect((range["text"] as? String)?.hasPrefix("full in") == true)

        let details = try daemon.client().request("status details")
        #expect(details.lines.last?.hasPrefix("Trend:\tfull in") == true, "\(details.lines)")
        #expect(waitUntil(seconds: 5) {
            ((try? String(contentsOfFile: metrics + "/usedspace.prom", encoding: .utf8)) ?? "").contains("usedspace_time_to_full_seconds{")
        })
        #expect(daemon.stop() == 0)
        // The history, with the new point, is saved for the next run.
        let saved = try String(contentsOfFile: state + "/history", encoding: .utf8)
        #expect(saved.hasPrefix("usedspace-history 1\n"))
        #expect(saved.components(separatedBy: "],[").count >= points.count / 2)
    }

    @Test func aFlatFilesystemSaysNothing() throws {
        let scratch = try ScratchDirectory("ttf-flat")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=50m")
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--interval", "200ms"])
        try daemon.waitUntilAnswering()
        let json = try #require(try daemon.client().request("status json").json)
        #expect(json["time_to_full"] is NSNull)
        let details = try daemon.client().request("status details")
        #expect(!details.lines.contains { $0.hasPrefix("Trend:") })
    }
}
