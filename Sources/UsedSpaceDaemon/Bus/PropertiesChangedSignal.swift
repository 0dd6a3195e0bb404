import CSystemd
import UsedSpaceCore

/// org.freedesktop.DBus.Properties.PropertiesChanged with the new values in it, built
/// directly. sd_bus_emit_properties_changed would make the same message by looking up the
/// object's vtable and calling the getter of each property (a lookup by name and path per
/// property): a disk in use sends one every second, and that was most of its cost.
enum PropertiesChangedSignal {
    /// Sends the signal for `interface` at `objectPath`; a negative errno on failure.
    static func send(_ bus: OpaquePointer, objectPath: String, interface: String, _ changed: [(name: String, value: BusValue)]) -> Int32 {
        var message: OpaquePointer?
        var result = sd_bus_message_new_signal(bus, &message, objectPath, "org.freedesktop.DBus.Properties", "PropertiesChanged")
        guard result >= 0, let message else { return result }
        defer { sd_bus_message_unref(message) }
        result = append(interface: interface, changed, to: message)
        guard result >= 0 else { return result }
        return sd_bus_send(bus, message, nil)
    }

    /// The body, `sa{sv}as`: the interface, the changed values, no invalidated names.
    private static func append(interface: String, _ changed: [(name: String, value: BusValue)], to message: OpaquePointer) -> Int32 {
        var result = interface.withCString { sd_bus_message_append_basic(message, CChar(bitPattern: UInt8(ascii: "s")), $0) }
        if result >= 0 { result = sd_bus_message_open_container(message, CChar(bitPattern: UInt8(ascii: "a")), "{sv}") }
        for (name, value) in changed where result >= 0 {
            result = sd_bus_message_open_container(message, CChar(bitPattern: UInt8(ascii: "e")), "sv")
            if result >= 0 { result = name.withCString { sd_bus_message_append_basic(message, CChar(bitPattern: UInt8(ascii: "s")), $0) } }
            if result >= 0 {
                let signature = [CChar(bitPattern: value.typeCode), 0]
                result = sd_bus_message_open_container(message, CChar(bitPattern: UInt8(ascii: "v")), signature)
            }
            if result >= 0 { result = value.append(to: message) }
            if result >= 0 { result = sd_bus_message_close_container(message) }
            if result >= 0 { result = sd_bus_message_close_container(message) }
        }
        if result >= 0 { result = sd_bus_message_close_container(message) }
        if result >= 0 { result = sd_bus_message_open_container(message, CChar(bitPattern: UInt8(ascii: "a")), "s") }
        if result >= 0 { result = sd_bus_message_close_container(message) }
        return result
    }
}
