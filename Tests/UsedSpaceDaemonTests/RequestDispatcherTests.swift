import Testing
@testable import UsedSpaceCore
@testable import UsedSpaceDaemon

/// The protocol's answers, decided without a socket.
@Suite struct RequestDispatcherTests {
    final class FakeWatch: ServedWatch {
        let path: String
        var snapshot: Snapshot?
        init(_ path: String, snapshot: Snapshot?) {
            self.path = path
            self.snapshot = snapshot
        }
        func matches(_ requested: String) -> Bool { requested == path }
        func lines(for view: ViewRequest, configurationProblem: String?) -> [String] {
            ["\(path) \(view.format.name)\(configurationProblem.map { " ! " + $0 } ?? "")"]
        }
    }

    static func snapshot(_ path: String) -> Snapshot {
        Snapshot(path: path, mountPoint: "/", fileSystemType: "ext4",
                 stats: FilesystemStats(blockSize: 4096, totalBlocks: 100, freeBlocks: 50, availableBlocks: 40, totalInodes: 10, freeInodes: 5),
                 state: .fresh, seq: 1, sampledAt: Timestamp(secondsSinceEpoch: 0), source: .daemon)
    }

    let home = FakeWatch("/home/u", snapshot: Self.snapshot("/home/u"))
    let data = FakeWatch("/data", snapshot: Self.snapshot("/data"))

    func answer(_ line: String, problem: String? = nil) throws -> Reply {
        let request = try RequestParser.parse(Array(line.utf8)).get()
        return RequestDispatcher.reply(to: request, watches: [home, data], configurationProblem: problem)
    }

    @Test func statusWithoutAPathIsTheFirstWatch() throws {
        guard case .answer(let frame) = try answer("status json") else { Issue.record("not an answer"); return }
        #expect(frame == "ok 1\n/home/u json\n")
    }

    @Test func statusOfAPathAndOfAll() throws {
        guard case .answer(let one) = try answer("status path=/data") else { Issue.record("not an answer"); return }
        #expect(one == "ok 1\n/data text\n")
        guard case .answer(let all) = try answer("status all i3bar") else { Issue.record("not an answer"); return }
        #expect(all == "ok 2\n/home/u i3bar\n/data i3bar\n")
    }

    @Test func aPathNotWatchedIsRefusedWithTheWatchedOnes() throws {
        guard case .answer(let frame) = try answer("status path=/elsewhere") else { Issue.record("not an answer"); return }
        #expect(frame == "error not-watched /elsewhere is not watched by this daemon (watched: /home/u, /data)\n")
    }

    @Test func subscribeNamesItsWatchOrAll() throws {
        guard case .subscribe(let watch, _, let frame) = try answer("subscribe path=/data") else { Issue.record("not a subscription"); return }
        #expect(watch === data)
        #expect(frame == "ok 1\n/data text\n")
        guard case .subscribe(let every, _, _) = try answer("subscribe all") else { Issue.record("not a subscription"); return }
        #expect(every == nil)
    }

    @Test func beforeTheFirstSampleTheAnswerWaits() throws {
        data.snapshot = nil
        guard case .waitForSnapshot = try answer("status path=/data") else { Issue.record("did not wait"); return }
        guard case .waitForSnapshot = try answer("status all") else { Issue.record("did not wait"); return }
        guard case .answer = try answer("status") else { Issue.record("the first watch has a snapshot"); return }
    }

    @Test func theConfigurationProblemReachesEveryRendering() throws {
        guard case .answer(let frame) = try answer("status", problem: "config:2: bad") else { Issue.record("not an answer"); return }
        #expect(frame == "ok 1\n/home/u text ! config:2: bad\n")
    }

    @Test func theSmallRequests() throws {
        guard case .answer(let hello) = try answer("hello") else { Issue.record("hello"); return }
        #expect(hello == "ok 1\nusedspace-protocol 1 usedspaced \(UsedSpaceVersion.current)\n")
        guard case .answerAndClose(let quit) = try answer("quit") else { Issue.record("quit"); return }
        #expect(quit == "ok 0\n")
        guard case .reload = try answer("reload") else { Issue.record("reload"); return }
        guard case .answer(let help) = try answer("help") else { Issue.record("help"); return }
        for verb in ["hello", "ping", "status", "subscribe", "reload", "quit"] {
            #expect(help.contains("\n\(verb) "), "help lacks \(verb)")
        }
    }
}
