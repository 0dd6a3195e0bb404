import UsedSpaceCore
import UsedSpaceSystem

/// What a connection tells its owner.
protocol ClientConnectionDelegate: AnyObject {
    func connection(_ connection: ClientConnection, didReceive request: Result<Request, RequestError>)
    /// The client will send nothing more (it half-closed); answers may still be owed.
    func connectionDidEndInput(_ connection: ClientConnection)
    func connectionDidClose(_ connection: ClientConnection)
}

/// One client on the socket: reads request lines, writes frames, never blocks.
///
/// Its life: open (reading requests, writing answers) → the client half-closes (`inputEnded`:
/// no more reading; answers still go out, and a subscriber still gets updates) → closed,
/// when the owner finishes it and everything queued has been sent, or at once when the
/// client is gone (hang-up, error, a write that fails). A closed connection holds no
/// descriptor and no event source.
///
/// Memory is bounded both ways: a request longer than the protocol allows is refused, and a
/// client that does not read what it is sent is dropped once `maximumBacklog` bytes wait.
final class ClientConnection {
    static let maximumBacklog = 256 << 10
    private static let readChunk = 16 << 10

    private var socket: FileDescriptor?
    let peerProcessID: Int32
    private var source: IOEventSource?
    private var input: [UInt8] = []
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var closeWhenFlushed = false
    /// The client half-closed: no more requests will come.
    private(set) var inputEnded = false
    unowned(unsafe) let delegate: ClientConnectionDelegate

    /// Set while the client is subscribed: which watch (nil: all of them), in which view.
    var subscription: (watch: ServedWatch?, view: ViewRequest)?
    /// When the connection last completed a request (or opened), for the idle sweep.
    var lastRequestAt: UInt64

    init(socket: consuming FileDescriptor, peerProcessID: Int32, loop: EventLoop, now: UInt64, delegate: ClientConnectionDelegate) throws(SystemError) {
        let descriptor = socket.rawValue
        self.socket = consume socket
        self.peerProcessID = peerProcessID
        self.delegate = delegate
        self.lastRequestAt = now
        source = try IOEventSource(loop: loop, descriptor: descriptor, events: IOEvents.readable) { [unowned(unsafe) self] events in
            self.handle(events)
        }
    }

    deinit {
        // The source first: it must not outlive the descriptor it watches.
        source = nil
    }

    var isClosed: Bool { socket == nil }

    /// Queues a frame. Returns false when the client was dropped for not reading.
    @discardableResult
    func send(_ frame: String) -> Bool {
        send(bytes: Array(frame.utf8))
    }

    /// Queues a frame already encoded: a publish encodes each view's frame once and sends
    /// the same bytes to every subscriber of that view. With nothing queued (the usual
    /// case) it goes straight from `bytes` to the socket, and only what the socket did not
    /// take is copied.
    @discardableResult
    func send(bytes: [UInt8]) -> Bool {
        guard !isClosed else { return false }
        if output.isEmpty {
            guard let sent = try? socket?.send(bytes) else {
                close() // EPIPE, ECONNRESET: the client went away.
                return false
            }
            if sent == bytes.count {
                if closeWhenFlushed { close() }
                return !isClosed
            }
            output.append(contentsOf: bytes[sent...])
        } else {
            output.append(contentsOf: bytes)
        }
        flush()
        guard !isClosed else { return false }
        if output.count - outputOffset > Self.maximumBacklog {
            close()
            return false
        }
        return true
    }

    /// Sends what is queued, then closes.
    func finish() {
        closeWhenFlushed = true
        flush()
    }

    func close() {
        guard !isClosed else { return }
        source = nil
        socket = nil
        input = []
        output = []
        subscription = nil
        delegate.connectionDidClose(self)
    }

    var hasUnsentOutput: Bool { outputOffset < output.count }

    private func handle(_ events: UInt32) {
        // epoll reports a hang-up (both directions closed: the client is gone) and errors
        // whatever events were asked for, even none: not closing here is a busy loop.
        if events & (IOEvents.hangUp | IOEvents.error) != 0 {
            close()
            return
        }
        if events & IOEvents.writable != 0 { flush() }
        if !isClosed && events & IOEvents.readable != 0 { readAvailable() }
    }

    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: Self.readChunk)
        guard let result = try? socket?.read(into: &chunk) else {
            close()
            return
        }
        switch result {
        case .wouldBlock:
            return
        case .endOfFile:
            // The client finished writing (socat does, after its request): stop reading and
            // let the owner close once everything asked for has been answered.
            inputEnded = true
            updateInterest()
            delegate.connectionDidEndInput(self)
        case .data(let count):
            input.append(contentsOf: chunk[0..<count])
            processLines()
        }
    }

    private func processLines() {
        var start = 0
        while !isClosed && !closeWhenFlushed, let newline = input[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = input[start..<newline]
            start = newline + 1
            delegate.connection(self, didReceive: RequestParser.parse(line))
        }
        guard !isClosed else { return }
        input.removeFirst(start)
        if input.count > ProtocolVersion.maximumRequestLength + 1 {
            input = []
            delegate.connection(self, didReceive: .failure(RequestError(
                code: "too-long", message: "requests are at most \(ProtocolVersion.maximumRequestLength) bytes; closing")))
            finish()
        }
        if input.isEmpty { input = [] }
    }

    private func flush() {
        while outputOffset < output.count {
            guard let sent = try? socket?.send(output, from: outputOffset) else {
                close() // EPIPE, ECONNRESET: the client went away mid-answer.
                return
            }
            if sent == 0 { break }
            outputOffset += sent
        }
        if outputOffset == output.count {
            output = []
            outputOffset = 0
            if closeWhenFlushed {
                close()
                return
            }
        } else if outputOffset > 64 << 10 {
            output.removeFirst(outputOffset)
            outputOffset = 0
        }
        updateInterest()
    }

    /// Readable while requests may come; writable while output waits. Neither, for a
    /// half-closed subscriber between updates: then only a hang-up wakes us.
    private func updateInterest() {
        let reading = !inputEnded && !closeWhenFlushed
        source?.setEvents((reading ? IOEvents.readable : 0) | (hasUnsentOutput ? IOEvents.writable : 0))
    }
}
