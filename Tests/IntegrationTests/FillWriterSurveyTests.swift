import Foundation
import Testing
import UsedSpaceCore
import UsedSpaceSystem

/// FillWriterSurvey against real writers on a real tmpfs: a process of ours writing 10 MB/s
/// is named, with its rate and its file, at the second look; a writer of another user is
/// never named; a writer that stopped is not named any more.
@Suite(.serialized, Prerequisite.root)
struct FillWriterSurveyTests {
    static func device(of path: String) throws -> (major: UInt32, minor: UInt32) {
        let status = try FileStatus.of(path)
        return (status.deviceMajor, status.deviceMinor)
    }

    @Test func ourWriterIsNamedWithItsFileAndNobodyElsesIs() throws {
        let scratch = try ScratchDirectory("writers")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=400m,mode=1777")
        let device = try Self.device(of: mount)
        let ours = try WriterProcess(mount + "/download.iso", bytesPerSecond: 10_000_000)
        defer { ours.end() }
        let theirs = try WriterProcess(mount + "/theirs.log", bytesPerSecond: 20_000_000,
                                       prefix: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
        defer { theirs.end() }
        #expect(waitUntil(seconds: 5) { FileManager.default.fileExists(atPath: mount + "/theirs.log") })

        var survey = FillWriterSurvey()
        let started = DispatchTime.now().uptimeNanoseconds
        #expect(survey.look(device: device) == nil, "the first look only takes the counters")
        print("measured: a look at this machine's processes: \((DispatchTime.now().uptimeNanoseconds - started) / 1_000) µs")
        var writers: [FillWriter] = []
        // Looks a second apart, as the daemon's samples are, until ours has written.
        #expect(waitUntil(seconds: 10) {
            usleep(1_000_000)
            writers = survey.look(device: device) ?? []
            return writers.contains { $0.pid == ours.pid }
        }, "\(writers)")
        let named = try #require(writers.first { $0.pid == ours.pid })
        #expect(named.command == "python3" && named.file == mount + "/download.iso", "\(named)")
        #expect((5_000_000...20_000_000).contains(named.bytesPerSecond), "\(named.bytesPerSecond) B/s")
        #expect(!writers.contains { $0.pid == theirs.pid || $0.file?.hasSuffix("theirs.log") == true }, "\(writers)")
        print("measured: a 10 MB/s writer named at \(named.bytesPerSecond) B/s")

        // Stopped: not named at the next look.
        kill(ours.pid, SIGSTOP)
        _ = survey.look(device: device)
        usleep(1_000_000) // the second between two looks: an observation window
        #expect(survey.look(device: device)?.contains { $0.pid == ours.pid } == false)
        kill(ours.pid, SIGCONT)
    }

    @Test func aProcessWritingElsewhereIsNotAWriterHere() throws {
        let scratch = try ScratchDirectory("writers-elsewhere")
        let here = try scratch.mountTmpfs(at: "here", options: "size=50m")
        let elsewhere = try scratch.mountTmpfs(at: "elsewhere", options: "size=400m")
        let writer = try WriterProcess(elsewhere + "/data", bytesPerSecond: 10_000_000)
        defer { writer.end() }
        var survey = FillWriterSurvey()
        _ = survey.look(device: try Self.device(of: here))
        usleep(1_000_000) // the second between two looks: an observation window
        #expect(survey.look(device: try Self.device(of: here)) == [])
    }
}
