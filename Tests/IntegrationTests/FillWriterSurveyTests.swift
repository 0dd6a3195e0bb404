import Foundation
import Testing
import UsedSpaceCore
import UsedSpaceSystem

/// FillWriterSurvey against real writers on a real tmpfs: a process of ours writing 10 MB/s
/// is named, with its rate and its file, at the second look; a writer of another user is
/// never named; a writer that stopped is not named any more. FillWriterWindow, the window
/// of looks of `status` and the daemon's helper, names a writer that writes once a second,
/// and says someone else wrote only when the filesystem grew.
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

        let survey = FillWriterSurvey()
        let started = DispatchTime.now().uptimeNanoseconds
        var last = survey.look()
        print("measured: a look at this machine's processes: \((DispatchTime.now().uptimeNanoseconds - started) / 1_000) µs")
        var writers: [FillWriter] = []
        // Looks a second apart, as the daemon's samples are, until ours has written.
        #expect(waitUntil(seconds: 10) {
            usleep(1_000_000)
            let look = survey.look()
            writers = survey.writers(from: last, to: look, device: device, freeBefore: nil, freeAfter: nil, home: nil).writers
            last = look
            return writers.contains { $0.pid == ours.pid }
        }, "\(writers)")
        let named = try #require(writers.first { $0.pid == ours.pid })
        #expect(named.command == "python3" && named.file == mount + "/download.iso", "\(named)")
        #expect((5_000_000...20_000_000).contains(named.bytesPerSecond), "\(named.bytesPerSecond) B/s")
        #expect(!writers.contains { $0.pid == theirs.pid || $0.file?.hasSuffix("theirs.log") == true }, "\(writers)")
        print("measured: a 10 MB/s writer named at \(named.bytesPerSecond) B/s")

        // Stopped: not named at the next look.
        kill(ours.pid, SIGSTOP)
        let before = survey.look()
        usleep(1_000_000) // the second between two looks: an observation window
        #expect(!survey.writers(from: before, to: survey.look(), device: device, freeBefore: nil, freeAfter: nil, home: nil)
            .writers.contains { $0.pid == ours.pid })
        kill(ours.pid, SIGCONT)
    }

    @Test func aProcessWritingElsewhereIsNotAWriterHere() throws {
        let scratch = try ScratchDirectory("writers-elsewhere")
        let here = try scratch.mountTmpfs(at: "here", options: "size=50m")
        let elsewhere = try scratch.mountTmpfs(at: "elsewhere", options: "size=400m")
        let writer = try WriterProcess(elsewhere + "/data", bytesPerSecond: 10_000_000)
        defer { writer.end() }
        let survey = FillWriterSurvey()
        let before = survey.look()
        usleep(1_000_000) // the second between two looks: an observation window
        #expect(survey.writers(from: before, to: survey.look(), device: try Self.device(of: here), freeBefore: nil, freeAfter: nil, home: nil).writers == [])
    }

    static func target(_ mount: String) throws -> FillWriterWindow.Target {
        FillWriterWindow.Target(try #require(try MountTable.read().last { $0.mountPoint == mount }))
    }

    /// A writer of ours that writes 8 MB once a second, a window at a time: named in every
    /// window (two looks half a second apart fell between its writes half the time).
    @Test func aWindowNamesAWriterThatWritesOnceASecond() throws {
        let scratch = try ScratchDirectory("writers-window")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=2g")
        let ours = try PeriodicWriter(mount + "/burst.bin", bytes: 8 << 20, everySeconds: 1)
        defer { ours.end() }
        #expect(waitUntil(seconds: 5) { FileManager.default.fileExists(atPath: mount + "/burst.bin") })
        let target = try Self.target(mount)
        for _ in 0..<6 {
            let started = Date()
            let seen = FillWriterWindow.look(at: [target], home: nil)[0]
            #expect(seen.writers.map(\.pid) == [ours.pid] && seen.writers.first?.file == mount + "/burst.bin", "\(seen)")
            #expect(Date().timeIntervalSince(started) < 2.5)
        }
    }

    /// Another user (nobody) fills it: someone else, since the filesystem grew; nobody
    /// writes: nobody seen, never someone else.
    @Test func aWindowSaysSomeoneElseOnlyWhenTheFilesystemGrew() throws {
        let scratch = try ScratchDirectory("writers-grew")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=1g,mode=1777")
        let target = try Self.target(mount)
        let quiet = FillWriterWindow.look(at: [target], home: nil)[0]
        #expect(quiet.writers.isEmpty && !quiet.sawGrowth, "\(quiet)")
        let theirs = try WriterProcess(mount + "/theirs.log", bytesPerSecond: 20_000_000,
                                       prefix: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
        defer { theirs.end() }
        #expect(waitUntil(seconds: 5) { FileManager.default.fileExists(atPath: mount + "/theirs.log") })
        let busy = FillWriterWindow.look(at: [target], home: nil)[0]
        #expect(busy.writers.isEmpty && busy.sawGrowth, "\(busy)")
    }
}
