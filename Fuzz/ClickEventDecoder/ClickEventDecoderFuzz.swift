// libFuzzer target for ClickEventDecoder: whatever i3bar or i3blocks (or anything else)
// writes to the block's stdin, in arbitrary chunks. Built only with USEDSPACE_FUZZ=1;
// bench/fuzz.sh builds and runs it. Besides "no crash", it checks:
// - the events do not depend on how the input is cut: fed whole, split at one point and
//   fed in chunks of data-dependent sizes, the decoder gives the same events;
// - lines are independent: the events are those of each line decoded on its own;
// - every event has a button from 0 to 64, and there are no more events than lines.
import UsedSpaceCore

/// A PRNG seeded from the input, so that the cuts are data-dependent and reproducible.
private struct SplitMix64 {
    var state: UInt64
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        state = 0xCBF2_9CE4_8422_2325
        for byte in bytes { state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)

    var whole = ClickEventDecoder()
    let events = whole.feed(input)

    for event in events where !(0...64).contains(event.button) {
        fatalError("event with button \(event.button)")
    }
    let newlines = input.count(where: { $0 == UInt8(ascii: "\n") })
    guard events.count <= newlines else { fatalError("\(events.count) events from \(newlines) lines") }

    var random = SplitMix64(input)
    let point = size == 0 ? 0 : Int(random.next() % UInt64(size + 1))
    var split = ClickEventDecoder()
    let splitEvents = split.feed(input[..<point]) + split.feed(input[point...])
    guard splitEvents == events else { fatalError("split at \(point): \(splitEvents) instead of \(events)") }

    var chunked = ClickEventDecoder()
    var chunkedEvents: [ClickEvent] = []
    var start = 0
    while start < size {
        let length = Int(random.next() % 17)  // empty chunks too
        let end = min(size, start + length)
        chunkedEvents += chunked.feed(input[start..<end])
        start = end
    }
    guard chunkedEvents == events else { fatalError("fed in chunks: \(chunkedEvents) instead of \(events)") }

    var perLine: [ClickEvent] = []
    for line in input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
        var decoder = ClickEventDecoder()
        perLine += decoder.feed(Array(line) + [UInt8(ascii: "\n")])
    }
    guard perLine == events else { fatalError("line by line: \(perLine) instead of \(events)") }
    return 0
}
