import Glibc
import Testing
@testable import UsedSpaceCore
@testable import UsedSpaceDaemon
@testable import UsedSpaceSystem

/// A reload is all or nothing: everything that can fail happens before the new state
/// replaces the running one, the new watches' threads started last. A step that fails
/// leaves the running state as it was, and what was made for the new one is released
/// (its threads end).
@Suite struct ReloadPlanTests {
    final class Factory: ConfiguredStateFactory {
        let loop: EventLoop
        /// The configured path whose `start` fails, and the textfile directory that fails.
        var failingStart: String?
        var failingTextfile: String?
        var made: [WatchedPath] = []
        var started: [String] = []

        init() throws { loop = try EventLoop() }

        func makeWatch(configuredPath: String, settings: DaemonSettings) throws(DaemonFailure) -> WatchedPath {
            do {
                let watch = try WatchedPath(configuredPath: configuredPath, path: configuredPath,
                                            publisher: Publisher(policy: PublishPolicy(), source: .daemon),
                                            settings: settings, loop: loop, estimate: { _ in nil }) { _, _ in }
                made.append(watch)
                return watch
            } catch {
                throw DaemonFailure(error)
            }
        }

        func makeTextfile(directory: String) throws(DaemonFailure) -> BackgroundFileWriter {
            if directory == failingTextfile { throw DaemonFailure("no textfile today") }
            do {
                return try BackgroundFileWriter(path: directory + "/usedspace.prom", what: "the textfile", loop: loop, logger: Logger(label: "test"))
            } catch {
                throw DaemonFailure(error)
            }
        }

        func start(_ watch: WatchedPath) throws(DaemonFailure) {
            if watch.configuredPath == failingStart { throw DaemonFailure("cannot start \(watch.configuredPath)") }
            do { try watch.start() } catch { throw DaemonFailure(error) }
            started.append(watch.configuredPath)
        }
    }

    static func configuration(_ paths: [String], textfile: String? = nil, interval: UInt64 = 5_000_000) -> Configuration {
        var configuration = Configuration()
        configuration.daemon.paths = paths
        configuration.daemon.textfileDirectory = textfile
        configuration.daemon.intervalMicroseconds = interval
        return configuration
    }

    @Test func keptWatchesStayTheSameObjectsAndNewOnesStart() throws {
        let factory = try Factory()
        let running = try ReloadPlan.prepare(Self.configuration(["/"]), replacing: ConfiguredState(configuration: Configuration(), watches: [], textfile: nil), factory: factory).state
        let plan = try ReloadPlan.prepare(Self.configuration(["/", "/tmp"]), replacing: running, factory: factory)
        #expect(plan.state.watches.count == 2)
        #expect(plan.state.watches[0] === running.watches[0])
        #expect(plan.added.map(\.configuredPath) == ["/tmp"])
        #expect(plan.removed.isEmpty)
        let dropped = try ReloadPlan.prepare(Self.configuration(["/tmp"]), replacing: plan.state, factory: factory)
        #expect(dropped.removed.map(\.configuredPath) == ["/"])
        #expect(dropped.added.isEmpty)
    }

    /// The last step (starting the new watches' threads) fails: nothing of the running state
    /// changed, and the watches made for the new one are released, their threads ended.
    @Test func aReloadThatFailsAtItsLastStepChangesNothing() throws {
        let factory = try Factory()
        let scratch = "/tmp/usedspace-reload-test-\(getpid())"
        mkdir(scratch, 0o755)
        defer { rmdir(scratch) }
        let running = try ReloadPlan.prepare(Self.configuration(["/"]), replacing: ConfiguredState(configuration: Configuration(), watches: [], textfile: nil), factory: factory).state
        let before = running.watches.map(ObjectIdentifier.init)
        factory.failingStart = "/proc"
        weak var started: ConditionLock<SamplingThread.State>?
        do {
            _ = try ReloadPlan.prepare(Self.configuration(["/", "/tmp", "/proc"], textfile: scratch), replacing: running, factory: factory)
            Issue.record("the reload did not fail")
        } catch {
            #expect("\(error)" == "cannot start /proc")
        }
        #expect(running.watches.map(ObjectIdentifier.init) == before)
        #expect(running.textfile == nil)
        // "/tmp" was made and started before "/proc" failed; once released, its thread ends.
        #expect(factory.started == ["/", "/tmp"])
        do {
            let tmp = try #require(factory.made.first { $0.configuredPath == "/tmp" })
            started = tmp.sampler.shared
        }
        factory.made.removeAll { $0.configuredPath != "/" }
        let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
        while started != nil && MonotonicClock.nanoseconds() < deadline { usleep(1000) }
        #expect(started == nil, "the thread of a watch made for a failed reload still runs")
    }

    @Test func aTextfileThatCannotBeOpenedFailsTheReloadBeforeAnyThreadStarts() throws {
        let factory = try Factory()
        let running = ConfiguredState(configuration: Configuration(), watches: [], textfile: nil)
        factory.failingTextfile = "/nope"
        #expect(throws: DaemonFailure.self) {
            try ReloadPlan.prepare(Self.configuration(["/tmp"], textfile: "/nope"), replacing: running, factory: factory)
        }
        #expect(factory.started.isEmpty)
    }
}
