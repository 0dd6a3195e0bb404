import Testing
@testable import UsedSpaceCore

/// What the daemon and its helper say to each other (usedspace-writers.socket): what the
/// helper writes is read back as written, and any other line is refused whole, never half
/// taken: the socket's other end may be any process of the user.
@Suite struct FillWriterExchangeTests {
    static let writer = FillWriter(pid: 4242, command: "python3", bytesPerSecond: 50_000_000, file: "/home/u/Downloads/x \"1\".iso")

    static func refused(_ line: String) -> Bool {
        (try? FillWriterExchange.outcome(of: Array(line.utf8))) == nil
    }

    @Test func whatTheHelperWritesIsReadBack() throws {
        let line = FillWriterExchange.answer(FillWriters([Self.writer, FillWriter(pid: 7, command: "dd", bytesPerSecond: 300_000)], sawGrowth: true, home: nil))
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
        #expect(try FillWriterExchange.outcome(of: Array(line.utf8))
                == .writers([Self.writer, FillWriter(pid: 7, command: "dd", bytesPerSecond: 300_000)], grew: true))
        // None of the user's: whether the filesystem grew meanwhile (someone else wrote) or not.
        #expect(try FillWriterExchange.outcome(of: Array(FillWriterExchange.answer(FillWriters([], sawGrowth: true, home: nil)).utf8))
                == .writers([], grew: true))
        #expect(try FillWriterExchange.outcome(of: Array(FillWriterExchange.answer(FillWriters([], sawGrowth: false, home: nil)).utf8))
                == .writers([], grew: false))
        // An older helper's answer, without `grew`: an empty list meant someone else.
        #expect(try FillWriterExchange.outcome(of: Array(#"{"writers":[]}"#.utf8)) == .writers([], grew: true))
        #expect(Self.refused(#"{"writers":[],"grew":"yes"}"#) && Self.refused(#"{"writers":[],"grew":true,"more":1}"#))
        #expect(try FillWriterExchange.outcome(of: Array(FillWriterExchange.answer(failure: "nothing is mounted at /x").utf8))
                == .failed("nothing is mounted at /x"))
        // The helper never sends more than three.
        let many = FillWriterExchange.answer(FillWriters(Array(repeating: Self.writer, count: 5), sawGrowth: true, home: nil))
        #expect(try FillWriterExchange.outcome(of: Array(many.utf8)) == .writers(Array(repeating: Self.writer, count: 3), grew: true))
    }

    /// Found by the fuzzer: a file name of control characters, each written as `\u007f`, made
    /// an answer the daemon refused as too long.
    @Test func theLongestAnswerWithEveryByteEscapedIsReadBack() throws {
        let command = String(repeating: "\u{7F}", count: FillWriterExchange.maximumCommandBytes)
        let file = "/" + String(repeating: "\u{7F}", count: FillWriterExchange.maximumPathBytes - 1)
        let writer = FillWriter(pid: Int32.max, command: command, bytesPerSecond: UInt64.max, file: file)
        let line = FillWriterExchange.answer(FillWriters(Array(repeating: writer, count: FillWriterExchange.maximumWriters), sawGrowth: true, home: nil))
        #expect(line.utf8.count > 16 << 10 && line.utf8.count <= FillWriterExchange.maximumLineBytes)
        let outcome = try FillWriterExchange.outcome(of: Array(line.utf8))
        #expect(outcome == .writers(Array(repeating: FillWriter(pid: Int32.max, command: ControlCharacters.replaced(in: command),
                                                                 bytesPerSecond: UInt64.max, file: file), count: 3), grew: true))
    }

    @Test func theQuestionIsOneLineWhateverTheMountPoint() {
        let question = FillWriterExchange.question(mountPoint: "/mnt/a b\nc%")
        #expect(question == "/mnt/a%20b%0Ac%25\n")
        #expect(FillWriterExchange.mountPoint(inQuestion: String(question.dropLast())) == "/mnt/a b\nc%")
        for hostile in ["", "relative", "%2", "%ZZ/x", "/a%00b", "%FF%FE", String(repeating: "/aaaa", count: 3000)] {
            #expect(FillWriterExchange.mountPoint(inQuestion: hostile) == nil, "\(hostile.prefix(40))")
        }
    }

    @Test func hostileAnswersAreRefused() {
        let good = #"{"pid":1,"command":"a","bytes_per_second":1}"#
        #expect(!Self.refused(#"{"writers":[\#(good)]}"#))
        let hostile = [
            "", "\n", "null", "[]", "42", #""writers""#, "{}", "not json", #"{"writers":[]}{"writers":[]}"#,
            #"{"writers":[]}"# + "\n" + #"{"writers":[]}"#,                                 // two lines
            #"{"writers":{}}"#, #"{"writers":null}"#, #"{"writers":[],"extra":1}"#,
            #"{"writers":[1]}"#, #"{"writers":[[]]}"#, #"{"writers":[[[[[[]]]]]]}"#,
            #"{"writers":[\#(good),\#(good),\#(good),\#(good)]}"#,                         // more than three
            #"{"writers":[{"pid":0,"command":"a","bytes_per_second":1}]}"#,
            #"{"writers":[{"pid":-4,"command":"a","bytes_per_second":1}]}"#,
            #"{"writers":[{"pid":2147483648,"command":"a","bytes_per_second":1}]}"#,
            #"{"writers":[{"pid":1.5,"command":"a","bytes_per_second":1}]}"#,
            #"{"writers":[{"pid":"1","command":"a","bytes_per_second":1}]}"#,
            #"{"writers":[{"pid":1,"command":"","bytes_per_second":1}]}"#,
            #"{"writers":[{"pid":1,"command":7,"bytes_per_second":1}]}"#,
            #"{"writers":[{"pid":1,"command":"\#(String(repeating: "x", count: 65))","bytes_per_second":1}]}"#,
            #"{"writers":[{"pid":1,"command":"a","bytes_per_second":-1}]}"#,
            #"{"writers":[{"pid":1,"command":"a","bytes_per_second":18446744073709551616}]}"#,
            #"{"writers":[{"pid":1,"command":"a","bytes_per_second":1e9}]}"#,
            #"{"writers":[{"pid":1,"command":"a"}]}"#,
            #"{"writers":[{"pid":1,"command":"a","bytes_per_second":1,"file":"relative/x"}]}"#,
            #"{"writers":[{"pid":1,"command":"a","bytes_per_second":1,"file":"/a\u0000b"}]}"#,
            #"{"writers":[{"pid":1,"command":"a","bytes_per_second":1,"file":7}]}"#,
            #"{"writers":[{"pid":1,"command":"a","bytes_per_second":1,"file":"/\#(String(repeating: "x", count: 4096))"}]}"#,
            #"{"writers":[{"pid":1,"command":"a","bytes_per_second":1,"uid":0}]}"#,
            #"{"error":7}"#, #"{"error":"x","writers":[]}"#,
            #"{"writers":[{"pid":1,"command":"a","bytes_per_second":1}]"#,                  // cut short
            String(repeating: " ", count: FillWriterExchange.maximumLineBytes) + "{}",       // too long
        ]
        for line in hostile {
            #expect(Self.refused(line), "\(line.prefix(80))")
        }
        // Not UTF-8.
        #expect((try? FillWriterExchange.outcome(of: Array(#"{"error":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8))) == nil)
    }

    @Test func whatIsTakenCannotRewriteATerminalOrANotification() throws {
        let line = #"{"writers":[{"pid":9,"command":"ev\u001b[2Jil","bytes_per_second":1,"file":"/tmp/a\nb"}]}"#
        guard case .writers(let writers, _) = try FillWriterExchange.outcome(of: Array(line.utf8)) else { Issue.record("refused"); return }
        #expect(writers.first?.command == "ev?[2Jil")
        #expect(writers.first?.description(home: nil) == "ev?[2Jil (pid 9) writing /tmp/a?b")
        let error = #"{"error":"\u001b]0;owned\u0007\#(String(repeating: "y", count: 300))"}"#
        guard case .failed(let reason) = try FillWriterExchange.outcome(of: Array(error.utf8)) else { Issue.record("refused"); return }
        #expect(!reason.contains("\u{1b}") && reason.count == 200)
    }

    @Test func aReasonOfLineBreaksIsStillAtMostTwoHundredCharactersAndReadsBackTheSame() throws {
        // "\r\n" is one Character until each of its two scalars becomes "?".
        let error = #"{"error":"\#(String(repeating: #"a\r\n"#, count: 150))"}"#
        guard case .failed(let reason) = try FillWriterExchange.outcome(of: Array(error.utf8)) else { Issue.record("refused"); return }
        #expect(reason.count == 200)
        #expect(try FillWriterExchange.outcome(of: Array(FillWriterExchange.answer(failure: reason).utf8)) == .failed(reason))
    }

    @Test func theNotificationSaysWhoIsWriting() {
        var snapshot = Snapshot(path: "/home/u", mountPoint: "/home", fileSystemType: "ext4",
                                stats: FilesystemStats(blockSize: 1_000_000, totalBlocks: 100_000, freeBlocks: 10_000, availableBlocks: 9_000),
                                state: .fresh, seq: 1, sampledAt: Timestamp(secondsSinceEpoch: 0), source: .daemon)
        snapshot.fastFill = FastFill(bytesPerSecond: 50_000_000, secondsToFull: 180, sustainedSeconds: 20)
        let alert = snapshot.spaceAlerts[0]
        let named = alert.naming(FillWriters([FillWriter(pid: 4242, command: "python3", bytesPerSecond: 50_000_000, file: "/home/u/Downloads/x.iso")],
                                             sawGrowth: true, home: "/home/u"))
        #expect(named.summary == alert.summary)
        #expect(named.body == alert.body + " Writing: python3 (pid 4242) writing ~/Downloads/x.iso, 50 MB/s.")
        #expect(alert.naming(FillWriters([], sawGrowth: true, home: "/home/u")).body == alert.body + " Writing: another user or the system.")
        #expect(alert.naming(FillWriters([], sawGrowth: false, home: "/home/u")).body == alert.body + " Writing: no writer seen.")
    }
}
