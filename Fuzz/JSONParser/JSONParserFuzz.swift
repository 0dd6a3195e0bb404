// libFuzzer target for JSONParser.parse: the JSON this program reads from outside (state
// file, click events, the daemon's snapshot lines). Built only with USEDSPACE_FUZZ=1;
// bench/fuzz.sh builds and runs it. Besides "no crash", it checks:
// - the depth limit is exact: a text nested N levels deep (a scalar is 1, `[]` is 1, `[1]`
//   and `[[]]` are 2; counted in the text, as a member a later duplicate key replaces still
//   counts) is accepted with a maximumDepth of N and refused with N − 1, and never accepted
//   beyond the limit (the default and a data-dependent smaller one); the parsed value is
//   never deeper than the text;
// - only valid UTF-8 is ever accepted; a failure's offset lies within the input;
// - what is accepted, written back (strings with JSONObjectWriter.quoted), parses to the
//   same value, and writing that again gives the same text.
import UsedSpaceCore

private func levels(_ value: JSONValue) -> Int {
    switch value {
    case .array(let elements): return 1 + (elements.map(levels).max() ?? 0)
    case .object(let members): return 1 + (members.values.map(levels).max() ?? 0)
    case .null, .bool, .number, .string: return 1
    }
}

/// The depth maximumDepth must reach for valid JSON text: 1 + the most containers around
/// any value, counted in the text.
private func textLevels(_ input: UnsafeBufferPointer<UInt8>) -> Int {
    var needed = 0
    var open = 0
    var inString = false
    var escaped = false
    for byte in input {
        if inString {
            if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            continue
        }
        switch byte {
        case UInt8(ascii: "["), UInt8(ascii: "{"): open += 1; needed = max(needed, open)
        case UInt8(ascii: "]"), UInt8(ascii: "}"): open -= 1
        case UInt8(ascii: ","), UInt8(ascii: ":"), 0x20, 0x09, 0x0A, 0x0D: break
        case UInt8(ascii: "\""): inString = true; needed = max(needed, open + 1)
        default: needed = max(needed, open + 1)  // a number or a literal
        }
    }
    return needed
}

private func written(_ value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .number(let text): return text
    case .string(let text): return JSONObjectWriter.quoted(text)
    case .array(let elements): return "[" + elements.map(written).joined(separator: ",") + "]"
    case .object(let members):
        return "{" + members.keys.sorted().map { JSONObjectWriter.quoted($0) + ":" + written(members[$0]!) }.joined(separator: ",") + "}"
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    // A smaller limit chosen by the input, 0 to 9.
    let smallLimit = size == 0 ? 0 : Int(input[size - 1] % 10)
    let limited = Result { () throws(JSONParser.Failure) in try JSONParser.parse(input, maximumDepth: smallLimit) }

    let value: JSONValue
    do {
        value = try JSONParser.parse(input)
    } catch {
        guard (0...size).contains(error.offset) else { fatalError("failure offset \(error.offset) outside 0…\(size)") }
        if case .success = limited { fatalError("accepted with maximumDepth \(smallLimit) but refused with the default") }
        return 0
    }

    let depth = textLevels(input)
    guard depth <= JSONParser.defaultMaximumDepth else {
        fatalError("accepted a text \(depth) levels deep; the limit is \(JSONParser.defaultMaximumDepth)")
    }
    guard levels(value) <= depth else { fatalError("a value \(levels(value)) levels deep from a text \(depth) levels deep") }
    switch limited {
    case .success(let same):
        guard depth <= smallLimit else { fatalError("accepted a text \(depth) levels deep with maximumDepth \(smallLimit)") }
        guard same == value else { fatalError("maximumDepth changed the value") }
    case .failure:
        guard depth > smallLimit else { fatalError("refused a text \(depth) levels deep with maximumDepth \(smallLimit)") }
    }
    guard (try? JSONParser.parse(input, maximumDepth: depth)) == value else { fatalError("refused with maximumDepth \(depth) = its depth") }
    if (try? JSONParser.parse(input, maximumDepth: depth - 1)) != nil { fatalError("accepted with maximumDepth \(depth - 1) < its depth") }

    guard String(validating: input, as: UTF8.self) != nil else { fatalError("accepted invalid UTF-8") }

    let text = written(value)
    guard let again = try? JSONParser.parse(text) else { fatalError("cannot read back \(text.debugDescription)") }
    guard again == value else { fatalError("\(text.debugDescription) reads back as \(again), not \(value)") }
    guard written(again) == text else { fatalError("writing is not stable for \(text.debugDescription)") }
    return 0
}
