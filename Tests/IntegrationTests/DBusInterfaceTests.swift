import Foundation
import Testing

/// The daemon on the user's session bus (docs/dbus.md) as users run it: socket-activated
/// under the shipped unit in an unprivileged user manager, whose dbus.socket runs a real
/// dbus-daemon. What a desktop reads is checked with busctl and gdbus, as the user.
@Suite(.serialized, Prerequisite.root, Prerequisite.enabled(UserBus.available, "needs busctl, gdbus (libglib2.0-bin) and dbus-daemon"),
       Prerequisite.enabled(UserServiceDaemon.available, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"))
struct DBusInterfaceTests {
    /// The daemon with the user's bus running (and, with `activation`, the D-Bus activation
    /// file installed), started by its first client.
    static func daemon(_ arguments: [String], config: String? = nil, activation: Bool = false) throws -> (UserServiceDaemon, UserBus) {
        let daemon = try UserServiceDaemon(arguments: arguments, config: config, socket: false)
        let bus = UserBus(manager: daemon.manager)
        try bus.start()
        if activation { try bus.installActivationFile() }
        try daemon.startSocket()
        return (daemon, bus)
    }

    /// The name on the bus answers with its objects' numbers.
    static func waitForObject(_ bus: UserBus, _ object: String, seconds: Double = 10) -> Bool {
        waitUntil(seconds: seconds) { bus.property(object, "Seq") != nil }
    }

    /// The Filesystem interface's properties as docs/dbus.md lists them: name → D-Bus type.
    static func documentedProperties() throws -> [String: String] {
        let text = try String(contentsOf: UserBus.repository.appendingPathComponent("docs/dbus.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## `io.github.usedspace.UsedSpace1.Filesystem`").dropFirst().first)
        var properties: [String: String] = [:]
        for row in section.split(separator: "\n") where row.hasPrefix("| `") {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2 else { continue }
            for name in cells[0].matches(of: /`(\w+)`/) { properties[String(name.output.1)] = cells[1].replacingOccurrences(of: "`", with: "") }
        }
        return properties
    }

    @Test func everyWatchedFilesystemIsAnObjectWithDfsNumbersAndTheDocumentedProperties() throws {
        let scratch = try ScratchDirectory("bus-fs")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let (daemon, bus) = try Self.daemon(["--path", mount, "--path", "~", "--interval", "100ms"])
        try daemon.waitUntilAnswering()
        try Data(count: 30 << 20).write(to: URL(fileURLWithPath: mount + "/data"))
        let object = UserBus.objectPath(of: mount)
        #expect(Self.waitForObject(bus, object), "\(daemon.log.text)")

        let tree = try bus.busctl(["tree", UserBus.name])
        #expect(tree.stdout.contains(object) && tree.stdout.contains(UserBus.objectPath(of: daemon.home)), "\(tree.stdout)")

        // gdbus shows the interface as docs/dbus.md documents it, every property read-only.
        let introspection = try daemon.manager.runAsUser("/usr/bin/gdbus", ["introspect", "--session", "--dest", UserBus.name, "--object-path", object])
        var introspected: [String: String] = [:]
        for match in introspection.stdout.matches(of: #/readonly (\w+) (\w+) = /#) { introspected[String(match.output.2)] = String(match.output.1) }
        #expect(try introspected == Self.documentedProperties(), "\(introspection.stdout)")
        #expect(!introspection.stdout.contains("readwrite"))

        // df's numbers, exactly, once the daemon has seen the write.
        let df = try DiskFree.of(mount)
        #expect(waitUntil(seconds: 5) { bus.property(object, "UsedBytes") as? UInt64 == df.usedBytes })
        let objects = try bus.managedObjects()
        let properties = try #require(objects[object], "\(objects.keys)")
        #expect(properties["Path"] as? String == mount)
        #expect(properties["MountPoint"] as? String == mount)
        #expect(properties["Type"] as? String == "tmpfs")
        #expect(properties["UsedBytes"] as? UInt64 == df.usedBytes)
        #expect(properties["FreeBytes"] as? UInt64 == df.availableBytes)
        #expect(properties["TotalBytes"] as? UInt64 == df.sizeBytes)
        #expect(properties["UsedPercent"] as? Int == df.percent)
        #expect(properties["State"] as? String == "fresh")
        #expect(properties["Severity"] as? String == "normal")
        #expect(try bus.property(UserBus.root, "Version", interface: UserBus.name) as? String == CommandRunner.run(CommandRunner.usedspaced, ["--version"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: " ").last)
        #expect(bus.property(UserBus.root, "ConfigurationProblem", interface: UserBus.name) as? String == "")
    }

    @Test(Prerequisite.enabled(SampleSighting.available, SampleSighting.requirement))
    func aPublishIsOnePropertiesChangedWithTheLevelAndAnIdleDiskSendsNone() throws {
        let scratch = try ScratchDirectory("bus-publish")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let (daemon, bus) = try Self.daemon(["--path", mount, "--interval", "100ms"], config: "[bar]\nwarn = 50%\ncritical = 5MB\n")
        try daemon.waitUntilAnswering()
        let object = UserBus.objectPath(of: mount)
        #expect(Self.waitForObject(bus, object))
        let monitor = try BusMonitor(bus)
        let pid = try #require(daemon.pid)
        let first = try #require(bus.property(object, "Seq") as? UInt64)

        // Each change is made whole while the daemon is stopped: one publish each.
        for megabytes in [10, 60, 97, 20] {
            try whileStopped(pid) { try Data(count: megabytes << 20).write(to: URL(fileURLWithPath: mount + "/data")) }
            #expect(waitUntil(seconds: 5) { bus.property(object, "UsedPercent") as? Int == megabytes })
        }
        let last = try #require(bus.property(object, "Seq") as? UInt64)
        #expect(waitUntil(seconds: 5) { monitor.propertiesChanged(at: object).count == Int(last - first) })
        let changes = monitor.propertiesChanged(at: object)
        #expect(changes.compactMap { $0["Seq"] as? UInt64 } == Array(first + 1...last), "one signal per publish: \(changes)")
        // Only what changed, and the level as the [bar] limits say (5 MB free is critical).
        #expect(changes.allSatisfy { $0["Path"] == nil && $0["TotalBytes"] == nil })
        #expect(changes.compactMap { $0["Severity"] as? String } == ["warning", "critical", "normal"], "\(changes)")

        // An idle disk: nothing at all while the daemon samples it 20 times.
        let before = monitor.signals.count
        let sighting = try SampleSighting(daemon, path: mount)
        try #require(sighting.waitForSamples(20, seconds: 10), "the daemon sampled the idle disk \(sighting.readings().count) times in 10 s")
        sighting.stop()
        #expect(monitor.signals.count == before, "\(monitor.signals.dropFirst(before))")
        _ = daemon
    }

    @Test func objectsComeAndGoWithTheWatchesAndARefusedConfigurationIsSaid() throws {
        let scratch = try ScratchDirectory("bus-reload")
        let first = try scratch.mountTmpfs(at: "one", options: "size=10m")
        let second = try scratch.mountTmpfs(at: "two", options: "size=10m")
        let (daemon, bus) = try Self.daemon([], config: "[daemon]\npath = \(first)\ninterval = 100ms\n")
        try daemon.waitUntilAnswering()
        #expect(Self.waitForObject(bus, UserBus.objectPath(of: first)))
        let monitor = try BusMonitor(bus)

        try daemon.manager.writeConfig("[daemon]\npath = \(second)\ninterval = 100ms\n")
        #expect(try daemon.manager.systemctl("reload", "usedspace.service").status == 0)
        #expect(waitUntil(seconds: 5) { monitor.objects("InterfacesAdded") == [UserBus.objectPath(of: second)] }, "\(monitor.signals)")
        #expect(waitUntil(seconds: 5) { monitor.objects("InterfacesRemoved") == [UserBus.objectPath(of: first)] }, "\(monitor.signals)")
        #expect(Set(try bus.managedObjects().keys) == [UserBus.objectPath(of: second)])

        try daemon.manager.writeConfig("[daemon]\ninterval = soon\n")
        #expect(try daemon.manager.systemctl("reload", "usedspace.service").status != 0)
        #expect(waitUntil(seconds: 5) {
            (bus.property(UserBus.root, "ConfigurationProblem", interface: UserBus.name) as? String)?.contains("config:2") == true
        }, "\(String(describing: bus.property(UserBus.root, "ConfigurationProblem", interface: UserBus.name)))")
    }

    @Test func theFirstCallerOnTheBusStartsTheDaemonThroughSystemd() throws {
        let (daemon, bus) = try Self.daemon(["--path", "~"], activation: true)
        #expect(try daemon.manager.property("usedspace.service", "ActiveState") == "inactive")
        let call = try bus.busctl(["--timeout=20", "get-property", UserBus.name, UserBus.root, UserBus.name, "Version"])
        #expect(call.status == 0 && call.stdout.hasPrefix("s "), "\(call.stderr) \(daemon.log.text)")
        #expect(try daemon.manager.property("usedspace.service", "ActiveState") == "active")
    }

    @Test func theDaemonOutlivesTheBusAndTakesItsNameAgain() throws {
        // No bus at start: the socket serves as always.
        let daemon = try UserServiceDaemon(arguments: ["--path", "~"], socket: false)
        let bus = UserBus(manager: daemon.manager)
        try bus.stop()
        try daemon.startSocket()
        try daemon.waitUntilAnswering()
        #expect(waitUntil(seconds: 5) { daemon.log.text.contains("no session bus") }, "\(daemon.log.text)")
        let pid = daemon.pid
        let object = UserBus.objectPath(of: daemon.home)

        // The bus comes: the daemon finds it (retrying within seconds, not at its next publish).
        try bus.start()
        #expect(Self.waitForObject(bus, object, seconds: 15), "\(daemon.log.text)")

        // The bus dies (and dbus.socket starts a new one): the daemon takes its name again.
        #expect(try daemon.manager.systemctl("kill", "--signal=KILL", "dbus.service").status == 0)
        #expect(waitUntil(seconds: 5) { (try? daemon.client().request("ping", timeout: 2).lines) == ["pong"] })
        #expect(Self.waitForObject(bus, object, seconds: 15), "\(daemon.log.text)")
        #expect(daemon.pid == pid, "the same daemon all along: \(daemon.serviceState)")
    }

    @Test func hostileCallsGetErrorsAndChangeNothing() throws {
        let (daemon, bus) = try Self.daemon(["--path", "~"])
        try daemon.waitUntilAnswering()
        let object = UserBus.objectPath(of: daemon.home)
        #expect(Self.waitForObject(bus, object))
        let pid = daemon.pid
        let cases: [(arguments: [String], error: String)] = [
            (["set-property", UserBus.name, object, UserBus.filesystemInterface, "UsedBytes", "t", "0"], "not writable"),
            (["get-property", UserBus.name, object, UserBus.filesystemInterface, "NoSuchThing"], "or property NoSuchThing"),
            (["get-property", UserBus.name, UserBus.objectPath(of: "/not/watched"), UserBus.filesystemInterface, "Seq"], "Unknown object"),
            (["call", UserBus.name, object, UserBus.filesystemInterface, "Format"], "Unknown method"),
            (["get-property", UserBus.name, object, UserBus.filesystemInterface, String(repeating: "A", count: 60_000)], ""),
            (["call", UserBus.name, object, "org.freedesktop.DBus.Properties", "GetAll", "s", String(repeating: "x", count: 100_000)], ""),
        ]
        for (arguments, error) in cases {
            let result = try bus.busctl(arguments)
            #expect(result.status != 0, "\(arguments.prefix(5))")
            #expect(error.isEmpty || result.stderr.localizedCaseInsensitiveContains(error), "\(result.stderr)")
        }
        #expect(bus.property(object, "UsedBytes") as? UInt64 != 0)
        #expect(daemon.pid == pid && (try? daemon.client().request("ping", timeout: 2).lines) == ["pong"])
    }

    @Test func aHungFilesystemIsShownStaleAndNeverSlowsAnAnswer() throws {
        let hanging = try HangingMount()
        let (daemon, bus) = try Self.daemon(["--path", hanging.mountPoint, "--path", "~", "--interval", "100ms", "--timeout", "1s"])
        defer { hanging.release() }
        try daemon.waitUntilAnswering()
        let object = UserBus.objectPath(of: hanging.mountPoint)
        #expect(Self.waitForObject(bus, object))
        hanging.hang()
        #expect(waitUntil(seconds: 10) { bus.property(object, "State") as? String == "stale" }, "\(daemon.log.text)")
        // Each answer well within 100 ms on the bus (busctl gives up after that).
        for _ in 0..<20 {
            #expect(bus.property(object, "FreeBytes", timeout: "0.1") != nil)
        }
        #expect(bus.property(UserBus.objectPath(of: daemon.home), "State", timeout: "0.1") as? String == "fresh")
    }

    @Test func aSubscriberThatStopsReadingStallsNothing() throws {
        let scratch = try ScratchDirectory("bus-stuck")
        let mount = try scratch.mountTmpfs(at: "fs", options: "size=100m")
        let (daemon, bus) = try Self.daemon(["--path", mount, "--interval", "100ms", "--threshold", "0"])
        try daemon.waitUntilAnswering()
        let object = UserBus.objectPath(of: mount)
        #expect(Self.waitForObject(bus, object))
        // A monitor that never reads again (stopped): the bus holds what it has not read.
        let stuck = try BusMonitor(bus)
        let live = try BusMonitor(bus)
        kill(stuck.pid, SIGSTOP)
        defer { kill(stuck.pid, SIGCONT) }
        // Every sample publishes (threshold 0), 10 a second, with a write between some.
        for round in 0..<30 {
            try Data(count: (round % 7) << 20).write(to: URL(fileURLWithPath: mount + "/data"))
            let asked = Date()
            #expect((try? daemon.client().request("ping", timeout: 2).lines) == ["pong"])
            #expect(Date().timeIntervalSince(asked) < 1)
            usleep(100_000) // the pace of the writes, not a wait for anything
        }
        let seq = try #require(bus.property(object, "Seq") as? UInt64)
        #expect(waitUntil(seconds: 5) { (live.propertiesChanged(at: object).last?["Seq"] as? UInt64 ?? 0) >= seq })
    }
}
