import Foundation
import Glibc
import Testing
@testable import UsedSpaceCore
@testable import UsedSpaceSystem

/// The group that samples the paths on local filesystems in one thread, on real
/// directories of /dev/shm (a tmpfs: known local). Deadlines bound the waits only: no
/// assertion depends on how fast the machine is.
@Suite(.serialized) struct SamplingGroupTests {
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
                        sampler: SamplingThread.PathCache = SamplingThread.PathCache()) throws -> SamplingThread {
        try SamplingThread(path: path, publisher: Publisher(policy: PublishPolicy(), source: .daemon),
                           intervalMicroseconds: intervalMicroseconds, timeoutMicroseconds: timeoutMicroseconds,
                           group: group, cache: sampler)
    }

    /// A member of `group` for `directory`, started, once its first sample is in.
    static func sampledMember(of group: SamplingGroup, _ directory: ScratchDirectory, intervalMicroseconds: UInt64 = 100_000,
                              timeoutMicroseconds: UInt64 = 60_000_000) throws -> SamplingThread {
        let member = try sampler(directory.path, group: group, intervalMicroseconds: intervalMicroseconds, timeoutMicroseconds: timeoutMicroseconds)
        try member.start()
        #expect(eventually { member.hasSampled }, "the first sample of \(directory.path)")
        return member
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
        #expect(RealFilesystems.isKnownLocal(measurement.fileSystemType ?? ""), "the tests below need /dev/shm to be a tmpfs")
    }

    @Test func membersDueTogetherAreSampledInOnePass() throws {
        let group = try SamplingGroup()
        let first = try ScratchDirectory(), second = try ScratchDirectory(), third = try ScratchDirectory()
        let samplers = try [first, second, third].map { try Self.sampler($0.path, group: group) }
        for sampler in samplers { try sampler.start() }
        #expect(Self.eventually { group.memberCount == 3 && samplers.allSatisfy(\.hasSampled) }, "each path is in the group")
        // A member that joined just before a tick of the grid may be due alone once.
        let joined = Self.counts(group).passes
        #expect(Self.eventually { Self.counts(group).passes >= joined + 2 })
        let before = Self.counts(group)
        #expect(Self.eventually { Self.counts(group).passes >= before.passes + 5 })
        let after = Self.counts(group)
        #expect(after.samples - before.samples == 3 * (after.passes - before.passes),
                "every pass samples the three paths: \(before) → \(after)")
    }

    /// A path on a local filesystem by the mount table is sampled by the group from its
    /// first sample: no thread of its own that would end at once (a thread's end costs the
    /// daemon resident memory, docs/PERFORMANCE.md).
    @Test func aLocalPathIsSampledByTheGroupFromTheFirstSample() throws {
        let group = try SamplingGroup()
        let directory = try ScratchDirectory()
        #expect(SamplingThread.looksLocal(directory.path))
        let member = try Self.sampledMember(of: group, directory, intervalMicroseconds: 3_600_000_000)
        #expect(Self.counts(group).samples == 1, "the first sample was the group's")
        #expect(group.memberCount == 1)
        withExtendedLifetime(member) {}
    }

    @Test func aPathOutsideLocalFilesystemsKeepsAThreadOfItsOwn() throws {
        let group = try SamplingGroup()
        let directory = try ScratchDirectory()
        let local = try Self.sampler(directory.path, group: group)
        // A path that does not exist: nothing says its filesystem cannot hang.
        let missing = try Self.sampler("/nonexistent/usedspace-group", group: group)
        try local.start()
        try missing.start()
        #expect(Self.eventually { missing.hasSampled && local.hasSampled && group.memberCount == 1 })
        #expect(missing.takePublished().last?.state == .failed)
        usleep(300_000) // an observation window: the missing path never joins
        #expect(group.memberCount == 1, "only the local path is in the group")
    }

    @Test func membersComeAndGoAndTheThreadEndsWithTheLast() throws {
        let group = try SamplingGroup()
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
        let group = try SamplingGroup()
        let directory = try ScratchDirectory()
        let sampler = try Self.sampledMember(of: group, directory, intervalMicroseconds: 3_600_000_000)
        #expect(group.memberCount == 1)
        let samples = Self.counts(group).samples
        usleep(200_000) // an observation window: no sample
        #expect(Self.counts(group).samples == samples, "the next sample is an hour away")
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

    /// A sampler whose calls (a full sample and the quick statvfs alike) wait at `gate`.
    static func sampler(heldBy gate: Gate) -> SamplingThread.PathCache {
        var sampler = SamplingThread.PathCache()
        sampler.measure = { path, resolution in
            gate.pass()
            return PathSampler.sample(path, reusing: &resolution)
        }
        sampler.read = { path, readOnly throws(SystemError) in
            gate.pass()
            return try Statvfs.reading(of: path, readOnly: readOnly)
        }
        return sampler
    }

    /// A member whose call hangs (another filesystem mounted over its path, a failing disk)
    /// keeps the group's thread; the members behind it get a new thread once one of them is
    /// overdue by the timeout, and are never shown stale.
    @Test func aMemberThatHangsKeepsTheThreadAndTheOthersGetANewOne() throws {
        let group = try SamplingGroup()
        let gate = Gate()
        defer { gate.open() }
        let slowSampler = Self.sampler(heldBy: gate)
        let slowDirectory = try ScratchDirectory(), fastDirectory = try ScratchDirectory()
        let slow = try Self.sampler(slowDirectory.path, group: group, timeoutMicroseconds: 300_000, sampler: slowSampler)
        try slow.start()
        #expect(Self.eventually { group.memberCount == 1 && slow.hasSampled })
        let fast = try Self.sampler(fastDirectory.path, group: group, timeoutMicroseconds: 300_000)
        try fast.start()
        #expect(Self.eventually { group.memberCount == 2 && fast.hasSampled })
        let freshBefore = fast.takePublished().last
        #expect(freshBefore?.state == .fresh)

        gate.close()
        #expect(Self.eventually { gate.held == 1 }, "the slow member's statvfs is held")
        let samplesHeld = Self.counts(group).samples
        // As the daemon does: when the group's alarm goes off, every member checks.
        #expect(Self.goesOff(group.alarm, withinMilliseconds: 10_000), "the pass overran: the group's alarm goes off")
        group.alarm.acknowledge()
        let fastStale = fast.checkTimeout()
        let slowStale = slow.checkTimeout()
        #expect(!fastStale, "the member behind the one that hangs is not shown stale")
        #expect(slowStale, "the member that hangs is overdue")
        #expect(slow.takePublished().last?.state == .stale, "the member that hangs is shown stale")
        #expect(group.rescueCount == 1)
        #expect(Self.eventually { Self.counts(group).samples >= samplesHeld + 3 }, "a new thread samples the others")
        #expect(gate.held == 1, "…while the old one is still in its call")

        // The other member sees its filesystem change, fresh, during the hang.
        let file = fastDirectory.path + "/fill"
        let stats = try Statvfs.of(fastDirectory.path, readOnly: false)
        let size = max(1 << 20, Int(stats.usableBlocks * stats.blockSize / 2000))
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0, "open \(file): \(String(cString: strerror(errno)))")
        defer { unlink(file) }
        var written = 0
        let chunk = [UInt8](repeating: 0x55, count: 1 << 16)
        while written < size {
            let count = chunk.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            try #require(count > 0, "write \(file): \(String(cString: strerror(errno)))")
            written += count
        }
        close(descriptor)
        var seen: [Snapshot] = []
        #expect(Self.eventually {
            _ = fast.checkTimeout()
            seen += fast.takePublished()
            return seen.contains { $0.state == .fresh && $0.stats != freshBefore?.stats }
        }, "published fresh with the new figures")
        #expect(!seen.contains { $0.state != .fresh }, "never shown stale: \(seen.map(\.state))")

        gate.open()
        #expect(Self.eventually { slow.takePublished().last?.state == .fresh }, "sampled again once its call returned")
        #expect(Self.eventually { group.memberCount == 2 }, "and back in the group: its filesystem is local")
        #expect(group.rescueCount == 1)
    }

    static func goesOff(_ alarm: SamplingAlarm, withinMilliseconds timeout: Int32) -> Bool {
        var entry = pollfd(fd: alarm.descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, timeout) == 1
    }

    /// Samples that answer in time never set off an alarm: the owner's loop sleeps.
    @Test func alarmsStayQuietWhileSamplesAnswer() throws {
        let group = try SamplingGroup()
        let first = try ScratchDirectory(), second = try ScratchDirectory()
        let grouped = try Self.sampler(first.path, group: group, intervalMicroseconds: 20_000, timeoutMicroseconds: 100_000)
        let alone = try Self.sampler(second.path, group: nil, intervalMicroseconds: 20_000, timeoutMicroseconds: 100_000)
        try grouped.start()
        try alone.start()
        #expect(Self.eventually { group.memberCount == 1 && alone.hasSampled })
        let samples = Self.counts(group).samples
        #expect(!Self.goesOff(group.alarm, withinMilliseconds: 1000))
        #expect(!Self.goesOff(alone.alarm, withinMilliseconds: 10))
        #expect(!Self.goesOff(grouped.alarm, withinMilliseconds: 10))
        #expect(Self.counts(group).samples >= samples + 10, "while sampling every 20 ms")
    }

    /// A path on a thread of its own whose sample hangs sets off its own alarm.
    @Test func aSampleThatHangsOnItsOwnThreadSetsOffItsAlarm() throws {
        let gate = Gate()
        defer { gate.open() }
        let slowSampler = Self.sampler(heldBy: gate)
        let directory = try ScratchDirectory()
        gate.close()
        let alone = try Self.sampler(directory.path, group: nil, timeoutMicroseconds: 200_000, sampler: slowSampler)
        try alone.start()
        #expect(Self.goesOff(alone.alarm, withinMilliseconds: 10_000))
        alone.alarm.acknowledge()
        #expect(alone.checkTimeout())
        #expect(alone.takePublished().last?.state == .failed, "no numbers yet: a failure, timed out")
        gate.open()
        #expect(Self.eventually { alone.takePublished().last?.state == .fresh })
    }

    /// A relaxed path (what `path = auto` found) is sampled every other interval once it
    /// has been quiet for `quietAfter` samples, on the same grid as the others; a change
    /// brings it back to every interval.
    @Test func aQuietRelaxedPathIsSampledEveryOtherInterval() throws {
        let group = try SamplingGroup()
        let first = try ScratchDirectory(), second = try ScratchDirectory()
        let relaxed = try Self.sampler(first.path, group: group, intervalMicroseconds: 20_000)
        let plain = try Self.sampler(second.path, group: group, intervalMicroseconds: 20_000)
        relaxed.setRelaxed(true)
        try relaxed.start()
        try plain.start()
        // A quiet path's samples are its run of quiet samples, which each one lengthens.
        func quiet(_ sampler: SamplingThread) -> Int { sampler.shared.withLock { $0.quietSamples } }
        func taken(_ sampler: SamplingThread) -> Int { quiet(sampler) }
        #expect(Self.eventually { quiet(relaxed) >= SamplingThread.quietAfter && quiet(plain) >= SamplingThread.quietAfter },
                "nothing writes to /dev/shm here… (other work on the machine may)")
        let before = (taken(relaxed), taken(plain))
        #expect(Self.eventually { taken(plain) >= before.1 + 40 })
        let relaxedSamples = taken(relaxed) - before.0, plainSamples = taken(plain) - before.1
        let wasQuiet = quiet(relaxed) > 20
        // Only while it stayed quiet: a change elsewhere on /dev/shm resets it.
        if wasQuiet {
            #expect(Double(relaxedSamples) <= 0.7 * Double(plainSamples), "\(relaxedSamples) against \(plainSamples)")
            #expect(Double(relaxedSamples) >= 0.3 * Double(plainSamples), "\(relaxedSamples) against \(plainSamples)")
        }
        // A change: every interval again.
        let file = first.path + "/fill"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(repeating: 1, count: 1 << 20)))
        defer { unlink(file) }
        #expect(Self.eventually { quiet(relaxed) == 0 })
        // Every interval again: its run of quiet samples grows as fast as the other's.
        let afterChange = (taken(relaxed), taken(plain))
        #expect(Self.eventually { taken(plain) >= afterChange.1 + 5 })
        #expect(taken(relaxed) - afterChange.0 >= 4, "sampled every interval after the change")
    }

    /// No rescue while the group's thread is in no call: a rescue is for a call that hangs.
    @Test func noRescueWhileNoCallHangs() throws {
        let group = try SamplingGroup()
        let directory = try ScratchDirectory()
        let member = try Self.sampledMember(of: group, directory, timeoutMicroseconds: 300_000)
        #expect(group.memberCount == 1)
        #expect(!group.rescue(now: MonotonicClock.nanoseconds(), timeout: 300_000_000), "nothing is in a call")
        #expect(group.rescueCount == 0)
        withExtendedLifetime(member) {}
    }
}
