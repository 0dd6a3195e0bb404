/// A mouse click on a block, as i3bar (4.22) and i3blocks report it. Only what usedspace
/// acts on is kept; every other field is ignored, present or not.
public struct ClickEvent: Equatable, Sendable {
    public var name: String?
    public var instance: String?
    /// 1 left, 2 middle, 3 right, 4 and 5 the wheel.
    public var button: Int
    public var modifiers: [String]

    public init(name: String? = nil, instance: String? = nil, button: Int, modifiers: [String] = []) {
        self.name = name
        self.instance = instance
        self.button = button
        self.modifiers = modifiers
    }

    /// From one event object; nil when it is not an object with an integer `button`.
    public init?(_ value: JSONValue) {
        guard case .object = value, let button = value["button"]?.intValue, (0...64).contains(button) else { return nil }
        self.button = button
        name = value["name"]?.stringValue
        instance = value["instance"]?.stringValue
        if case .array(let list)? = value["modifiers"] {
            modifiers = list.compactMap { $0.stringValue }
        } else {
            modifiers = []
        }
    }
}

/// Turns the bytes a status bar writes to our stdin into click events. i3bar writes
/// `[`, then one event per line, each after the first preceded by a comma; i3blocks writes
/// one event per line. Anything that is not an event (garbage, truncated JSON, binary, a
/// line too long) is skipped: input from the bar must never stop the block.
public struct ClickEventDecoder {
    public static let maximumLineLength = 64 << 10
    private var pending: [UInt8] = []
    private var discardingLongLine = false

    public init() {}

    public mutating func feed<Bytes: Collection>(_ bytes: Bytes) -> [ClickEvent] where Bytes.Element == UInt8 {
        var events: [ClickEvent] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !discardingLongLine, let event = Self.event(inLine: pending) { events.append(event) }
                pending.removeAll(keepingCapacity: true)
                discardingLongLine = false
            } else if !discardingLongLine {
                pending.append(byte)
                if pending.count > Self.maximumLineLength {
                    pending.removeAll()
                    discardingLongLine = true
                }
            }
        }
        if pending.isEmpty && pending.capacity > 4096 { pending = [] }
        return events
    }

    static func event(inLine line: [UInt8]) -> ClickEvent? {
        var slice = line[...]
        let skippable: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "["), UInt8(ascii: ",")]
        while let first = slice.first, skippable.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\r") || last == UInt8(ascii: "\t")
                || last == UInt8(ascii: "]") || last == UInt8(ascii: ",") {
            slice = slice.dropLast()
        }
        guard slice.first == UInt8(ascii: "{"), let value = try? JSONParser.parse(slice, maximumDepth: 8) else { return nil }
        return ClickEvent(value)
    }
}
