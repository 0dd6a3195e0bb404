import Glibc
import Testing
@testable import UsedSpaceCore
@testable import UsedSpaceSystem

/// Every resource has one owner that releases it once: descriptors are closed exactly once,
/// and threads end when their owner goes away.
@Suite struct OwnershipTests {
    /// Whether `raw` is an open descriptor of this process, and which file it is.
    static func target(of raw: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/fd/\(raw)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// (Tests run in parallel: a closed number may be reused at once by another test, so
    /// "closed" is checked as "no longer this pipe", whose name carries its inode.)
    @Test func aDescriptorIsClosedWhenItsOwnerLetsGo() throws {
        var raw: Int32 = -1
        var name: String?
        do {
            let pipe = try FileDescriptor.pipe()
            raw = pipe.reading.rawValue
            name = Self.target(of: raw)
            #expect(name?.hasPrefix("pipe:") == true)
        }
        #expect(Self.target(of: raw) != name)
    }

    @Test func closeClosesAtOnce() throws {
        let pipe = try FileDescriptor.pipe()
        let reading = pipe.reading
        let raw = reading.rawValue
        let name = Self.target(of: raw)
        reading.close()
        #expect(Self.target(of: raw) != name)
        // `reading` cannot be used, or closed again, from here on: the compiler refuses it.
        _ = pipe.writing
    }

    @Test func releaseGivesUpOwnershipWithoutClosing() throws {
        let file = try FileDescriptor.open("/dev/null", O_RDONLY)
        let raw = file.release()
        #expect(Self.target(of: raw) == "/dev/null")
        close(raw)
    }

    @Test func writeAllWritesEverythingThroughAFullPipe() throws {
        let pipe = try FileDescriptor.pipe()
        let reading = pipe.reading, writing = pipe.writing
        try reading.setNonBlocking()
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let received = ConditionLock<[UInt8]>([])
        let raw = reading.rawValue
        // A reader on another thread drains the pipe (64 KiB) while writeAll blocks on it.
        try WorkerThread.start {
            var chunk = [UInt8](repeating: 0, count: 8192)
            while true {
                var poller = pollfd(fd: raw, events: Int16(POLLIN), revents: 0)
                _ = poll(&poller, 1, 1000)
                let count = read(raw, &chunk, chunk.count)
                if count == 0 { return }
                if count > 0 { received.update { $0 += chunk[0..<count] } }
            }
        }
        try writing.writeAll(payload)
        writing.close()
        let all = received.wait { state in state.count == payload.count ? .done(state) : .sleep(until: MonotonicClock.nanoseconds() + 10_000_000) }
        #expect(all == payload)
        _ = reading
    }

    @Test func aReadOfAClosedPeerIsEndOfFileAndOfAnEmptyOneWouldBlock() throws {
        let pair = try UnixSocket.pair()
        let first = pair.first, second = pair.second
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try first.read(into: &buffer) == .wouldBlock)
        #expect(try second.send(Array("hi".utf8)) == 2)
        #expect(try first.read(into: &buffer) == .data(2))
        second.close()
        #expect(try first.read(into: &buffer) == .endOfFile)
    }

    /// A BackgroundWorker's thread holds only the state it shares with its owner; when the
    /// owner goes away the thread ends (and lets go of that state).
    @Test func aWorkerThreadEndsWhenItsOwnerGoesAway() throws {
        weak var shared: ConditionLock<BackgroundWorker<Int, Int>.State>?
        do {
            let worker = try BackgroundWorker<Int, Int> { $0 * 2 }
            shared = worker.shared
            try worker.submit(21)
            _ = worker.wake.descriptor
            var outputs: [Int] = []
            let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
            while outputs.isEmpty && MonotonicClock.nanoseconds() < deadline {
                usleep(1000)
                outputs = worker.takeOutputs()
            }
            #expect(outputs == [42])
        }
        let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
        while shared != nil && MonotonicClock.nanoseconds() < deadline { usleep(1000) }
        #expect(shared == nil, "the worker's thread still runs after its owner went away")
    }

    @Test func aSamplingThreadEndsWhenItsOwnerGoesAway() throws {
        weak var shared: ConditionLock<SamplingThread.State>?
        do {
            let sampler = try SamplingThread(path: "/", publisher: Publisher(policy: PublishPolicy(), source: .direct),
                                             intervalMicroseconds: 3_600_000_000, timeoutMicroseconds: 5_000_000)
            shared = sampler.shared
            try sampler.start()
            var poller = pollfd(fd: sampler.wake.descriptor, events: Int16(POLLIN), revents: 0)
            #expect(poll(&poller, 1, 5000) == 1, "the first sample is taken at once")
            #expect(sampler.takePublished().first?.state == .fresh)
        }
        let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
        while shared != nil && MonotonicClock.nanoseconds() < deadline { usleep(1000) }
        #expect(shared == nil, "the sampling thread still runs after its owner went away")
    }
}

/// Small files read whole: the plain path for local filesystems (the child-process path for
/// network and FUSE mounts is tested against a real hung FUSE mount in DeadHomeTests).
@Suite struct FileReadingTests {
    @Test func aLocalFileIsReadWhole() throws {
        let text = try IsolatedFileRead.readText("/proc/self/mountinfo", limit: 1 << 20, timeoutMicroseconds: 1_000_000)
        #expect(text.contains(" / "))
    }

    @Test func aMissingFileSaysSo() {
        #expect(throws: FileReadError.self) { try IsolatedFileRead.read("/nonexistent/usedspace", limit: 10, timeoutMicroseconds: 1_000_000) }
        do {
            _ = try FileContents.read("/nonexistent/usedspace")
        } catch {
            #expect(error.isNotFound)
            #expect(error.description == "open: No such file or directory")
        }
    }

    @Test func aFileLargerThanTheLimitIsRefusedNotCut() {
        #expect(throws: FileReadError.tooLarge(limit: 100)) { try FileContents.read("/proc/self/maps", limit: 100) }
    }
}
