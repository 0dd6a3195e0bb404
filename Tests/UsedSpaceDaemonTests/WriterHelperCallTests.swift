import Foundation
import Testing
@testable import UsedSpaceCore
@testable import UsedSpaceDaemon
@testable import UsedSpaceSystem

/// The daemon's side of a question to its helper, against fake helpers on a real socket:
/// one that answers, one that is not there, and hostile ones (silent, garbage, endless,
/// gone): each is refused within the deadline, and nothing it says is taken.
@Suite(.serialized) struct WriterHelperCallTests {
    /// A helper on a socket of its own that accepts one connection, reads the question and
    /// writes `answer` (nil: accepts nothing, says nothing), then closes.
    final class FakeHelper {
        let path: String
        private let listener: Int32
        let question = ConditionLock("")
        private let done = DispatchSemaphore(value: 0)

        init(_ answer: [UInt8]?) throws {
            path = NSTemporaryDirectory() + "writers-\(UUID().uuidString.prefix(8)).sock"
            listener = try UnixSocket.listen(at: path).release()
            let listener = self.listener, question = self.question, done = self.done
            guard let answer else { done.signal(); return }
            Thread {
                defer { done.signal() }
                var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 5000) == 1 else { return }
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                defer { close(connection) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                var reading = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                if poll(&reading, 1, 5000) == 1 {
                    let count = read(connection, &buffer, buffer.count)
                    if count > 0 { question.withLock { $0 = String(decoding: buffer[0..<count], as: UTF8.self) } }
                }
                var offset = 0
                while offset < answer.count {
                    let written = answer[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard written > 0 else { return }
                    offset += written
                }
            }.start()
        }

        func ask(milliseconds: UInt64 = 2000) -> (reply: WriterHelperCall.Reply, seconds: Double) {
            let start = MonotonicClock.nanoseconds()
            let reply = WriterHelperCall.ask(socket: path, mountPoint: "/mnt/x y", deadline: start + milliseconds * 1_000_000)
            return (reply, Double(MonotonicClock.nanoseconds() - start) / 1e9)
        }

        deinit {
            done.wait()
            close(listener)
            unlink(path)
        }
    }

    static func isRefused(_ reply: WriterHelperCall.Reply) -> Bool {
        if case .refused = reply { return true }
        return false
    }

    @Test func anAnswerIsTaken() throws {
        let writer = FillWriter(pid: 4242, command: "python3", bytesPerSecond: 50_000_000, file: "/mnt/x y/a.iso")
        let helper = try FakeHelper(Array(FillWriterExchange.answer(FillWriters([writer], sawGrowth: true, home: nil)).utf8))
        let (reply, _) = helper.ask()
        #expect(reply == .outcome(.writers([writer], grew: true)))
        #expect(helper.question.withLock { $0 } == "/mnt/x%20y\n")
    }

    @Test func noHelperIsToldAtOnce() {
        let start = MonotonicClock.nanoseconds()
        let reply = WriterHelperCall.ask(socket: NSTemporaryDirectory() + "no-such-helper.sock", mountPoint: "/", deadline: start + 5_000_000_000)
        guard case .absent = reply else { Issue.record("\(reply)"); return }
        #expect(MonotonicClock.nanoseconds() - start < 500_000_000)
    }

    @Test func aSilentHelperIsLeftAtTheDeadline() throws {
        let helper = try FakeHelper(nil)
        let (reply, seconds) = helper.ask(milliseconds: 300)
        #expect(reply == .refused("no answer in time"))
        #expect(seconds >= 0.29 && seconds < 2, "\(seconds)")
    }

    @Test func hostileAnswersAreRefused() throws {
        let hostile: [[UInt8]] = [
            Array("hello\n".utf8),
            Array(#"{"writers":[{"pid":1,"command":"sh","bytes_per_second":1,"file":"../etc/passwd"}]}"#.utf8) + [10],
            Array(#"{"writers":[]}"#.utf8),                                          // closed before the newline
            [],                                                                       // closed at once
            [UInt8](repeating: UInt8(ascii: "x"), count: 100_000),                     // endless line
            Array(#"{"writers":[]}"#.utf8) + [0xFF, 10],
        ]
        for answer in hostile {
            let helper = try FakeHelper(answer)
            let (reply, seconds) = helper.ask()
            #expect(Self.isRefused(reply), "\(reply) for \(answer.prefix(60))")
            #expect(seconds < 1.5, "\(seconds)")
        }
    }
}
