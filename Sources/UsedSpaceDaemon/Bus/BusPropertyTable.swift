import CBusVtable
import CSystemd
import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// One interface's table of read-only properties for sd-bus, built by CBusVtable (sd-bus
/// takes tables made with C macros), every property answered by `getter`. It must outlive
/// the slots that use it.
final class BusPropertyTable {
    struct Property {
        var name: String
        var typeCode: UInt8
        var isConstant: Bool
    }

    let vtable: UnsafeMutablePointer<sd_bus_vtable>

    init(_ properties: [Property], getter: sd_bus_property_get_t) throws(SystemError) {
        // The C side copies the names.
        let names = properties.map { UnsafePointer(strdup($0.name)) }
        defer { for name in names { free(UnsafeMutablePointer(mutating: name)) } }
        let types = properties.map { CChar(bitPattern: $0.typeCode) }
        let constant = properties.map { UInt8($0.isConstant ? 1 : 0) }
        guard let vtable = usedspace_bus_vtable_new(names, types, constant, properties.count, getter) else {
            throw SystemError(call: "usedspace_bus_vtable_new", errno: ENOMEM)
        }
        self.vtable = vtable
    }

    deinit { usedspace_bus_vtable_free(vtable) }
}

extension BusValue {
    /// Appends the value to a message (a property's reply); a negative errno on failure.
    func append(to message: OpaquePointer) -> Int32 {
        let type = CChar(bitPattern: typeCode)
        switch self {
        case .string(let text):
            return text.withCString { sd_bus_message_append_basic(message, type, $0) }
        case .boolean(let flag):
            var value: Int32 = flag ? 1 : 0
            return sd_bus_message_append_basic(message, type, &value)
        case .int32(var value):
            return sd_bus_message_append_basic(message, type, &value)
        case .int64(var value):
            return sd_bus_message_append_basic(message, type, &value)
        case .uint64(var value):
            return sd_bus_message_append_basic(message, type, &value)
        case .double(var value):
            return sd_bus_message_append_basic(message, type, &value)
        }
    }
}
