import Glibc
import Testing
@testable import UsedSpaceCore
@testable import UsedSpaceDaemon
@testable import UsedSpaceSystem

/// One client connection's life, on a real socket pair and a real sd-event loop: requests
/// in, answers out, half-close, hang-up, a client that does not read. Above all, a loop that
/// has nothing to do dispatches nothing (a busy loop here once burned a core per vanished bar).
@Suite struct ClientConnectionTests {
    final class Recorder: ClientConnectionDelegate {
        var requests: [Result<Request, RequestError>] = []
        var inputEnded = 0
        var closed = 0
        var answer: ((ClientConnection, Request) -> Void)?

        func connection(_ connection: ClientConnection, didReceive request: Result<Request, RequestError>) {
            requests.append(request)
            if case .success(let request) = request { answer?(connection, request) }
        }
        func connectionDidEndInput(_ connection: ClientConnection) { inputEnded += 1 }
        func connectionDidClose(_ connection: ClientConnection) { closed += 1 }
    }

    /// A connection served on `loop`, and the client's end of it.
    final class Setup {
        let loop: EventLoop
        let recorder: Recorder
        let connection: ClientConnection
        var client: FileDescriptor

        init() throws {
            loop = try EventLoop()
            recorder = Recorder()
            let pair = try UnixSocket.pair()
            let served = pair.first
            let clientEnd = pair.second
            connection = try ClientConnection(socket: served, peerProcessID: 1, loop: loop, now: 0, delegate: recorder)
            client = clientEnd
        }

        /// Runs the loop until it has nothing to do (at most `limit` dispatches); returns how
        /// many it made.
        func settle(limit: Int = 100) throws -> Int {
            var dispatched = 0
            while dispatched < limit, try loop.runOnce(timeoutMicroseconds: 20_000) { dispatched += 1 }
            return dispatched
        }

        func receive() throws -> String {
            var text = ""
            var chunk = [UInt8](repeating: 0, count: 65536)
            while case .data(let count) = try client.read(into: &chunk) { text += String(decoding: chunk[0..<count], as: UTF8.self) }
            return text
        }
    }

    @Test func aRequestIsReadAndItsAnswerWritten() throws {
        let setup = try Setup()
        setup.recorder.answer = { connection, _ in connection.send(ResponseFrame.ok(["pong"])) }
        _ = try setup.client.send(Array("ping\n".utf8))
        #expect(try setup.settle() >= 1)
        #expect(setup.recorder.requests == [.success(.ping)])
        #expect(try setup.receive() == "ok 1\npong\n")
        #expect(try setup.settle() == 0, "an idle connection wakes nothing")
    }

    /// socat sends its request and half-closes: the answer still goes out, then the
    /// connection waits for nothing (no spin) until the owner finishes it.
    @Test func aHalfClosedClientIsAnsweredAndCostsNothing() throws {
        let setup = try Setup()
        _ = try setup.client.send(Array("status\n".utf8))
        shutdown(setup.client.rawValue, Int32(SHUT_WR))
        _ = try setup.settle()
        #expect(setup.recorder.requests.count == 1)
        #expect(setup.recorder.inputEnded == 1)
        #expect(!setup.connection.isClosed)
        #expect(try setup.settle() == 0, "a half-closed connection must not wake the loop")
        // A subscriber that half-closed still gets its updates.
        #expect(setup.connection.send(ResponseFrame.update(["x"])))
        #expect(try setup.receive() == "update 1\nx\n")
        setup.connection.finish()
        #expect(setup.connection.isClosed)
        #expect(setup.recorder.closed == 1)
    }

    /// A bar killed, a client gone: both directions closed. The connection closes at once,
    /// also when it had stopped reading (half-closed before) — the case that spun.
    @Test(arguments: [false, true])
    func aClientThatGoesAwayIsClosedAtOnce(halfClosedFirst: Bool) throws {
        let setup = try Setup()
        _ = try setup.client.send(Array("subscribe\n".utf8))
        if halfClosedFirst { shutdown(setup.client.rawValue, Int32(SHUT_WR)) }
        _ = try setup.settle()
        setup.connection.subscription = (nil, ViewRequest())
        #expect(try setup.settle() == 0)
        setup.client = try FileDescriptor.open("/dev/null", O_RDONLY) // the old client end closes
        let dispatched = try setup.settle()
        #expect(dispatched <= 2, "the loop dispatched \(dispatched) times for one hang-up")
        #expect(setup.connection.isClosed)
        #expect(setup.recorder.closed == 1)
        #expect(setup.connection.subscription == nil)
    }

    @Test func aClientThatDoesNotReadIsDroppedOnceTheBacklogIsFull() throws {
        let setup = try Setup()
        let frame = ResponseFrame.update([String(repeating: "x", count: 4095)])
        var sent = 0
        while setup.connection.send(frame) {
            sent += frame.utf8.count
            #expect(sent < 4 << 20, "never dropped")
            if sent >= 4 << 20 { break }
        }
        #expect(setup.connection.isClosed)
        #expect(setup.recorder.closed == 1)
        // Dropped once what waits exceeds the backlog (the socket buffers some on its own).
        #expect(sent >= ClientConnection.maximumBacklog)
    }

    @Test func aRequestLongerThanTheProtocolAllowsIsRefusedAndTheConnectionClosed() throws {
        let setup = try Setup()
        setup.recorder.answer = nil
        _ = try setup.client.send([UInt8](repeating: UInt8(ascii: "a"), count: ProtocolVersion.maximumRequestLength + 100))
        _ = try setup.settle()
        guard case .failure(let error)? = setup.recorder.requests.last else {
            Issue.record("no refusal: \(setup.recorder.requests)")
            return
        }
        #expect(error.code == "too-long")
    }

    @Test func finishSendsWhatIsQueuedThenCloses() throws {
        let setup = try Setup()
        setup.connection.send(ResponseFrame.ok(["bye"]))
        setup.connection.finish()
        #expect(setup.connection.isClosed)
        #expect(try setup.receive() == "ok 1\nbye\n")
        var chunk = [UInt8](repeating: 0, count: 16)
        #expect(try setup.client.read(into: &chunk) == .endOfFile)
    }
}
