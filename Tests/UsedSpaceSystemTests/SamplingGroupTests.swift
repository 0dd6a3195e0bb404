import Glibc
import Testing
@testable import UsedSpaceCore
@testable import UsedSpaceSystem

/// The group that samples the paths on local filesystems in one thread, on real
/// directories of /dev/shm (a tmpfs: known local). Deadlines bound the waits only: no
/// assertion depends on how fast the machine is.
@Suite struct SamplingGroupTests {
    /// A directory of its own on /dev/shm, removed at the end.
    final class ScratchDirectory {
        let path: String
        init() throws {
            var template = Array("/dev/shm/usedspace-group.XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw SystemError(call: "mkdtemp", errno: errno) }
            path = String(cString: made)
        }
        deinit { rmdir(path) }
    }

    static func sampler(_ path: String, group: SamplingGroup?, intervalMicroseconds: UInt64 = 100_000,
                        timeoutMicroseconds: UInt64 = 60_000_000,
                        sampler: SamplingThread.Sampler = SamplingThread.Sampler()) throws -> SamplingThread {
        try SamplingThread(path: path, publisher: Publisher(policy: PublishPolicy(), source: .daemon),
                           intervalMicroseconds: intervalMicroseconds, timeoutMicroseconds: timeoutMicroseconds,
                           group: group, sampler: sampler)
    }

    /// Waits until `condition` holds, for at most `seconds`; returns whether it held.
    static func eventually(seconds: UInt64 = 10, _ condition: () -> Bool) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + seconds * 1_000_000_000
        while !condition() {
            if MonotonicClock.nanoseconds() > deadline { return false }
            usleep(2000)
        }
        return true
    }

    static func counts(_ group: SamplingGroup) -> (passes: UInt64, samples: UInt64) {
        group.shared.withLock { ($0.passes, $0.samples) }
    }

    @Test func shmIsAKnownLocalFilesystem() throws {
        let directory = try ScratchDirectory()
        guard case .measured(let measurement) = PathSampler.sample(directory.path) else {
            Issue.record("/dev/shm cannot be measured")
            return
        }
        #expect(RealFilesystems.isKnownLocal(measurement.fileSystemType), "the tests below need /dev/shm to be a tmpfs")
    }

    @Test func membersDueTogetherAreSampledInOnePass() throws {
        let group = SamplingGroup()
        let first = try ScratchDirectory(), second = try ScratchDirectory(), third = try ScratchDirectory()
        let samplers = try [first, second, third].map { try Self.sampler($0.path, group: group) }
        for sampler in samplers { try sampler.start() }
        #expect(Self.eventually { group.memberCount == 3 }, "each path joins the group after its first sample")
        // A member that joined just before a tick of the grid may be due alone once.
        let joined = Self.counts(group).passes
        #expect(Self.eventually { Self.counts(group).passes >= joined + 2 })
        let before = Self.counts(group)
        #expect(Self.eventually { Self.counts(group).passes >= before.passes + 5 })
        let after = Self.counts(group)
        #expect(after.samples - before.samples == 3 * (after.passes - before.passes),
                "every pass samples the three paths: \(before) → \(after)")
    }

    @Test func aPathOutsideLocalFilesystemsKeepsAThreadOfItsOwn() throws {
        let group = SamplingGroup()
        let directory = try ScratchDirectory()
        let local = try Self.sampler(directory.path, group: group)
        // A path that does not exist: nothing says its filesystem cannot hang.
        let missing = try Self.sampler("/nonexistent/usedspace-group", group: group)
        try local.start()
        try missing.start()
        #expect(Self.eventually { missing.hasSampled && local.hasSampled && group.memberCount == 1 })
        #expect(missing.takePublished().last?.state == .failed)
        usleep(300_000)
        #expect(group.memberCount == 1, "only the local path is in the group")
    }

    @Test func membersComeAndGoAndTheThreadEndsWithTheLast() throws {
        let group = SamplingGroup()
        let first = try ScratchDirectory(), second = try ScratchDirectory()
        var kept: SamplingThread? = try Self.sampler(first.path, group: group)
        try kept?.start()
        #expect(Self.eventually { group.memberCount == 1 && group.isThreadRunning })
        do {
            let added = try Self.sampler(second.path, group: group)
            try added.start()
            #expect(Self.eventually { group.memberCount == 2 })
        }
        // Let go of: stopped, dropped at the group's next pass.
        #expect(Self.eventually { group.memberCount == 1 })
        kept = nil
        #expect(Self.eventually { !group.isThreadRunning && group.memberCount == 0 }, "the thread ends with its last member")
        // A new member starts it again.
        let again = try Self.sampler(second.path, group: group)
        try again.start()
        #expect(Self.eventually { group.memberCount == 1 && group.isThreadRunning })
        let samples = Self.counts(group).samples
        #expect(Self.eventually { Self.counts(group).samples > samples }, "the restarted thread samples")
    }

    @Test func aShorterIntervalWakesTheGroupAtOnce() throws {
        let group = SamplingGroup()
        let directory = try ScratchDirectory()
        let sampler = try Self.sampler(directory.path, group: group, intervalMicroseconds: 3_600_000_000)
        try sampler.start()
        #expect(Self.eventually { group.memberCount == 1 })
        let samples = Self.counts(group).samples
        #expect(samples == 0, "the next sample is an hour away")
        sampler.setInterval(microseconds: 50_000)
        #expect(Self.eventually { Self.counts(group).samples >= samples + 2 }, "the group slept on the old schedule")
    }

    /// Holds the sampler's calls once closed, until opened.
    final class Gate: @unchecked Sendable {
        let shared = ConditionLock((closed: false, held: 0))
        func pass() {
            shared.update { $0.held += 1 }
            shared.wait { state in state.closed ? .sleep(until: nil) : .done(()) }
            shared.update { $0.held -= 1 }
        }
        func close() { shared.update { $0.closed = true } }
        func open() { shared.update { $0.closed = false } }
        var held: Int { shared.withLock { $0.held } }
    }

    @Test func aMemberBehindASlowOneTimesOut() throws {
        let group = SamplingGroup()
        let gate = Gate()
        defer { gate.open() }
        var slowSampler = SamplingThread.Sampler()
        slowSampler.measure = { path, resolution, age in
            gate.pass()
            return PathSampler.sample(path, reusing: &resolution, sharedFor: age)
        }
        let slowDirectory = try ScratchDirectory(), fastDirectory = try ScratchDirectory()
        let slow = try Self.sampler(slowDirectory.path, group: group, timeoutMicroseconds: 300_000, sampler: slowSampler)
        try slow.start()
        #expect(Self.eventually { group.memberCount == 1 })
        let fast = try Self.sampler(fastDirectory.path, group: group, timeoutMicroseconds: 300_000)
        try fast.start()
        #expect(Self.eventually { group.memberCount == 2 })
        #expect(fast.takePublished().last?.state == .fresh)

        gate.close()
        #expect(Self.eventually { gate.held == 1 }, "the slow member's statvfs is held")
        #expect(Self.eventually { fast.checkTimeout() }, "the member waiting behind the slow one is published stale")
        #expect(fast.takePublished().last?.state == .stale)
        #expect(fast.nextTimeoutCheck == nil, "stale once, until a sample comes")
        #expect(slow.checkTimeout())
        #expect(slow.takePublished().last?.state == .stale)

        gate.open()
        #expect(Self.eventually { fast.takePublished().last?.state == .fresh }, "sampled again once the slow call returned")
        #expect(fast.nextTimeoutCheck != nil)
    }
}
