import CBusVtable
import CSystemd
import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// The daemon on the session bus (docs/dbus.md): the name io.github.usedspace.UsedSpace1,
/// a root object with the daemon's properties and an ObjectManager, and one object per
/// watched filesystem, added and removed with the watches. Each publish is one
/// PropertiesChanged (or the InterfacesAdded of a new object) with what changed; an idle
/// disk sends nothing. Every answer comes from the snapshots here: a caller on the bus never
/// waits on a filesystem, and sd-bus queues what a slow one has not read yet.
final class UsedSpaceBusObjects: SessionBusUser {
    static let name = "io.github.usedspace.UsedSpace1"
    static let rootPath = "/io/github/usedspace/UsedSpace1"
    static let filesystemPrefix = rootPath + "/filesystem"

    private let sessionBus: SessionBus
    private let logger: Logger
    private var bus: OpaquePointer?
    private var slots: [OpaquePointer?] = []
    private var rootTable: BusPropertyTable!
    private var filesystemTable: BusPropertyTable!
    /// By object path, and the paths in the order of the watches.
    private var filesystems: [String: FilesystemBusState] = [:]
    private var order: [String] = []
    private var configurationProblem: String?

    init(sessionBus: SessionBus, logger: Logger) throws(SystemError) {
        self.sessionBus = sessionBus
        self.logger = logger
        rootTable = try BusPropertyTable(
            DaemonBusProperty.allCases.map { .init(name: $0.rawValue, typeCode: $0.typeCode, isConstant: $0.isConstant) },
            getter: { _, _, _, property, reply, userdata, _ in
                guard let property, let reply, let name = DaemonBusProperty(rawValue: String(cString: property)) else { return -ENOENT }
                let objects = Unmanaged<UsedSpaceBusObjects>.fromOpaque(userdata!).takeUnretainedValue()
                return name.value(problem: objects.configurationProblem).append(to: reply)
            })
        filesystemTable = try BusPropertyTable(
            FilesystemBusProperty.allCases.map { .init(name: $0.rawValue, typeCode: $0.typeCode, isConstant: $0.isConstant) },
            getter: { _, path, _, property, reply, userdata, _ in
                guard let path, let property, let reply,
                      let name = FilesystemBusProperty(rawValue: String(cString: property)) else { return -ENOENT }
                let objects = Unmanaged<UsedSpaceBusObjects>.fromOpaque(userdata!).takeUnretainedValue()
                guard let filesystem = objects.filesystems[String(cString: path)] else { return -ENOENT }
                return name.value(of: filesystem).append(to: reply)
            })
    }

    deinit { busClosed() }

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    // MARK: - What the daemon shows

    /// A watch's new snapshot, at the level it carries, with the [bar] or [filesystem]
    /// settings that give its label.
    func show(_ snapshot: Snapshot, watchedPath: String, options: BarOptions) {
        let objectPath = Self.objectPath(of: watchedPath)
        let previous = filesystems[objectPath]
        let state = FilesystemBusState(watchedPath: watchedPath, snapshot: snapshot, label: options.label, limits: options.severity)
        filesystems[objectPath] = state
        guard let previous else {
            if !order.contains(objectPath) { order.append(objectPath) }
            if let bus { check("sd_bus_emit_object_added", sd_bus_emit_object_added(bus, objectPath)) }
            return
        }
        emitChanges(at: objectPath, from: previous, to: state)
    }

    /// The watches now, in order, after a reload or a mount: the objects of the others go
    /// (InterfacesRemoved), those with a snapshot not yet shown come, and the labels and
    /// limits are those of the configuration now.
    func watchesChanged(_ watches: [(path: String, snapshot: Snapshot?, options: BarOptions)]) {
        let wanted = watches.map { Self.objectPath(of: $0.path) }
        for objectPath in order where !wanted.contains(objectPath) {
            // Announced while it still exists: the signal lists its interfaces.
            if let bus { check("sd_bus_emit_object_removed", sd_bus_emit_object_removed(bus, objectPath)) }
            filesystems[objectPath] = nil
        }
        order = wanted.filter { filesystems[$0] != nil }
        for watch in watches {
            guard let snapshot = filesystems[Self.objectPath(of: watch.path)]?.snapshot ?? watch.snapshot else { continue }
            show(snapshot, watchedPath: watch.path, options: watch.options)
        }
        order = wanted.filter { filesystems[$0] != nil }
    }

    func setConfigurationProblem(_ problem: String?) {
        guard problem != configurationProblem else { return }
        configurationProblem = problem
        guard let bus else { return }
        emit(bus, at: Self.rootPath, interface: DaemonBusProperty.interface, [DaemonBusProperty.configurationProblem.rawValue])
    }

    private func emitChanges(at objectPath: String, from previous: FilesystemBusState, to state: FilesystemBusState) {
        // Without a connection nobody hears it: not even what changed is worked out.
        guard let bus else { return }
        let changed = FilesystemBusProperty.changed(from: previous, to: state)
        guard !changed.isEmpty else { return }
        check("sd_bus_send", PropertiesChangedSignal.send(bus, objectPath: objectPath, interface: FilesystemBusProperty.interface,
                                                          changed.map { ($0.rawValue, $0.value(of: state)) }))
    }

    private func emit(_ bus: OpaquePointer, at objectPath: String, interface: String, _ names: [String]) {
        var list = names.map { strdup($0) } + [nil]
        defer { for name in list { free(name) } }
        check("sd_bus_emit_properties_changed_strv", sd_bus_emit_properties_changed_strv(bus, objectPath, interface, &list))
    }

    /// The watched path's object: `/home/alice` → …/filesystem/_2fhome_2falice.
    static func objectPath(of watchedPath: String) -> String {
        var encoded: UnsafeMutablePointer<CChar>?
        guard sd_bus_path_encode(filesystemPrefix, watchedPath, &encoded) >= 0, let encoded else { return filesystemPrefix + "/_" }
        defer { free(encoded) }
        return String(cString: encoded)
    }

    // MARK: - The connection (SessionBusUser)

    func busOpened(_ bus: OpaquePointer) {
        self.bus = bus
        var root, filesystems, enumerator, manager, name: OpaquePointer?
        let steps: [(String, () -> Int32)] = [
            ("sd_bus_add_object_vtable", { sd_bus_add_object_vtable(bus, &root, Self.rootPath, DaemonBusProperty.interface, self.rootTable.vtable, self.userdata) }),
            ("sd_bus_add_fallback_vtable", { sd_bus_add_fallback_vtable(bus, &filesystems, Self.filesystemPrefix, FilesystemBusProperty.interface,
                                                                     self.filesystemTable.vtable, { _, path, _, userdata, found, _ in
                let objects = Unmanaged<UsedSpaceBusObjects>.fromOpaque(userdata!).takeUnretainedValue()
                guard let path, objects.filesystems[String(cString: path)] != nil else { return 0 }
                found?.pointee = userdata
                return 1
            }, self.userdata) }),
            ("sd_bus_add_node_enumerator", { sd_bus_add_node_enumerator(bus, &enumerator, Self.filesystemPrefix, { _, _, userdata, nodes, _ in
                let objects = Unmanaged<UsedSpaceBusObjects>.fromOpaque(userdata!).takeUnretainedValue()
                nodes?.pointee = UsedSpaceBusObjects.cStringList(objects.order)
                return 0
            }, self.userdata) }),
            ("sd_bus_add_object_manager", { sd_bus_add_object_manager(bus, &manager, Self.rootPath) }),
            ("sd_bus_request_name_async", { sd_bus_request_name_async(bus, &name, Self.name, UInt64(SD_BUS_NAME_QUEUE), { reply, userdata, _ in
                Unmanaged<UsedSpaceBusObjects>.fromOpaque(userdata!).takeUnretainedValue().nameRequested(reply)
                return 0
            }, self.userdata) }),
        ]
        for (call, step) in steps {
            let result = step()
            guard result >= 0 else {
                slots = [root, filesystems, enumerator, manager, name]
                busClosed()
                logger.error("cannot offer the D-Bus interface: \(SystemError(call: call, errno: -result))", metadata: ["call": "\(call)"])
                return
            }
        }
        slots = [root, filesystems, enumerator, manager, name]
    }

    func busClosed() {
        for slot in slots { sd_bus_slot_unref(slot) }
        slots = []
        bus = nil
    }

    private func nameRequested(_ reply: OpaquePointer?) {
        guard let reply else { return }
        if sd_bus_message_is_method_error(reply, nil) > 0 {
            let error = sd_bus_message_get_error(reply)
            let text = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "refused"
            logger.error("cannot take the name \(Self.name) on the session bus: \(text)", metadata: ["reason": "\(text)"])
            return
        }
        sessionBus.confirmed()
        var answer: UInt32 = 0
        guard sd_bus_message_read_basic(reply, CChar(bitPattern: UInt8(ascii: "u")), &answer) > 0 else { return }
        // RequestName's answers: 1 primary owner, 2 in the queue, 3 exists, 4 already owner.
        if answer == 2 {
            logger.notice("another process owns \(Self.name) on the session bus; this daemon takes it when that one ends",
                          metadata: ["name": "\(Self.name)"])
        } else {
            logger.debug("took \(Self.name) on the session bus", metadata: ["name": "\(Self.name)"])
        }
    }

    private func check(_ call: String, _ result: Int32) {
        // A connection that has just closed: the retry starts over with a new one.
        guard result < 0, result != -ENOTCONN, result != -ECONNRESET else { return }
        logger.warning("D-Bus: \(SystemError(call: call, errno: -result))", metadata: ["call": "\(call)"])
    }

    /// A NULL-terminated list of C strings, malloc'ed: sd-bus frees it.
    private static func cStringList(_ strings: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        guard let list = malloc(MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * (strings.count + 1))?
            .bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: strings.count + 1) else { return nil }
        for (index, string) in strings.enumerated() { list[index] = strdup(string) }
        list[strings.count] = nil
        return list
    }
}
