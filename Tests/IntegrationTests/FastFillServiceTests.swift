import Foundation
import Testing

/// Fills caught in seconds, end to end: a real tmpfs, a writer at a fixed rate, the daemon
/// at its default 5 s interval, and everything that shows the fill (JSON, details, a
/// subscribed bar, Prometheus, `watch` without a daemon); then the writer stops and all of
/// it falls silent. The daemon runs as users run it (UserServiceDaemon: socket-activated under
/// the shipped unit in the user's manager), the bars as that user, in that session.
@Suite(.serialized) struct FastFillServiceTests {
    static func json(_ daemon: UserServiceDaemon) -> [String: Any]? {
        try? daemon.client().request("status format=json").json
    }

    /// The issue's target: a steady 50 MB/s with 10 GB free is flagged within 30 s.
    @Test(Prerequisite.root, Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"),
          Prerequisite.enabled(SampleSighting.available, SampleSighting.requirement))
    func aSteadyFillIsCaughtWithinHalfAMinuteAndFallsSilentWhenItStops() throws {
        let scratch = try ScratchDirectory("fast-fill")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=10000000000")
        // The textfile directory is opened in a drop-in, as usedspaced(8) tells users.
        let metrics = scratch.subpath("metrics")
        try FileManager.default.createDirectory(atPath: metrics, withIntermediateDirectories: true)
        let daemon = try UserServiceDaemon(arguments: ["--path", mount, "--textfile-dir", metrics], dropIn: "ReadWritePaths=\(metrics)")
        try daemon.manager.giveToUser(metrics)
        try daemon.waitUntilAnswering()
        let bar = try daemon.watch(["--path", mount, "--format", "i3bar"])
        let direct = try daemon.watch(["--path", mount, "--format", "json", "--no-daemon"])
        try direct.waitForLine()
        // A quiet disk sampled over the detector's shortest window (10 s: three samples at the
        // default 5 s) is not filling.
        let sighting = try SampleSighting(daemon, path: mount)
        try #require(sighting.waitForSamples(3, seconds: 20), "the daemon sampled the quiet disk \(sighting.readings().count) times in 20 s")
        sighting.stop()
        #expect(Self.json(daemon)?["fast_fill"] == nil, "a quiet disk is not filling")

        let started = Date()
        let writer = try SteadyWriter(path: mount + "/runaway.log", bytesPerSecond: 50_000_000)
        var flagged: [String: Any]?
        _ = waitUntil(seconds: 60) {
            flagged = Self.json(daemon).flatMap { $0["fast_fill"] == nil ? nil : $0 }
            return flagged != nil
        }
        let detection = Date().timeIntervalSince(started)
        let json = try #require(flagged, "not flagged within 60 s")
        print("measured: 50 MB/s with 10 GB free flagged after \(String(format: "%.1f", detection)) s (default interval, 5 s)")
        #expect(detection <= 30, "flagged after \(detection) s")
        let fill = try #require(json["fast_fill"] as? [String: Any])
        let rate = try #require((fill["bytes_per_second"] as? NSNumber)?.intValue)
        #expect((45_000_000...55_000_000).contains(rate), "\(fill)")
        let free = try #require((json["free_bytes"] as? NSNumber)?.doubleValue)
        let seconds = try #require((fill["seconds_to_full"] as? NSNumber)?.doubleValue)
        // The rate is shown to two significant digits (45–55 MB/s: within 1.1 %), the time to
        // full comes from the unrounded fit: the two agree within that rounding, plus a second.
        let expected = free / Double(rate)
        #expect(abs(seconds - expected) <= expected * 0.012 + 1, "seconds to full is what is free at that rate")
        #expect((fill["text"] as? String)?.hasPrefix("filling at ") == true)
        // No slow estimate on a fresh history: time_to_full carries the fill.
        let range = try #require(json["time_to_full"] as? [String: Any])
        #expect((range["upper_seconds"] as? NSNumber)?.doubleValue == seconds)

        let details = try daemon.client().request("status details").lines
        #expect(details.first?.hasSuffix("\u{26A0} filling fast") == true && details.contains { $0.hasPrefix("Filling:\t") }, "\(details)")
        let urgent = try bar.waitForLine(timeout: 10) { $0.contains("filling fast") }
        #expect(urgent.contains(##""color":"#FF0000""##) && urgent.contains(#""urgent":true"#), "\(urgent)")
        #expect(waitUntil(seconds: 10) {
            ((try? String(contentsOfFile: metrics + "/usedspace.prom", encoding: .utf8)) ?? "").contains("usedspace_fast_fill_bytes_per_second{path=\"\(mount)\"")
        })
        // `watch` without a daemon samples on a thread of its own, with the same detector.
        try direct.waitForLine(timeout: 30) { WatchProcess.json($0)?["fast_fill"] is [String: Any] }

        writer.stop()
        let stopped = Date()
        print("measured: \(writer.written.value / 1_000_000) MB written")
        #expect(waitUntil(seconds: 30) { Self.json(daemon).map { $0["fast_fill"] == nil } ?? false })
        let silence = Date().timeIntervalSince(stopped)
        print("measured: silent \(String(format: "%.1f", silence)) s after the writer stopped")
        #expect(silence <= 20)
        let calm = try bar.waitForLine(after: bar.lines.count - 1, timeout: 10) { !$0.contains("filling fast") && $0.contains("%") }
        #expect(!calm.contains(#""urgent":true"#), "\(calm)")
        // The textfile is rewritten after the publish that ended the fill, on the loop's next
        // turn: give it the moments a loaded machine takes.
        #expect(waitUntil(seconds: 10) {
            !((try? String(contentsOfFile: metrics + "/usedspace.prom", encoding: .utf8)) ?? "usedspace_fast_fill_bytes_per_second{").contains("usedspace_fast_fill_bytes_per_second{")
        }, "the fast-fill gauge is gone from the textfile")
    }
}
