// libFuzzer target for SnapshotCodec.decode: a snapshot as the daemon sends it to clients
// (`status format=snapshot`) and as the state file keeps it, read as UTF-8 with invalid
// sequences replaced. An object with a "snapshots" array (the state file's shape) has each
// entry decoded too. Built only with USEDSPACE_FUZZ=1; bench/fuzz.sh builds and runs it.
// Besides "no crash", it checks, for every snapshot decoded:
// - decode(encode(s)) == s, and encode is stable: encode(decode(encode(s))) == encode(s);
// - encode(s) is one line with every control character escaped (as JSONObjectWriter
//   promises: C0, DEL, U+2028, U+2029);
// - every line SnapshotView renders of it, in every wire format with and without details,
//   has no C0 control character but tab (they are body lines of the daemon's frames);
// - an error's description has no control characters (it goes to the journal).
import UsedSpaceCore

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
}

private let wireFormats: [WireFormat] = [.snapshot] + OutputFormat.allCases.map(WireFormat.rendered)

private func check(_ snapshot: Snapshot) {
    let encoded = SnapshotCodec.encode(snapshot)
    guard !encoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\u{2028}" || $0 == "\u{2029}" }) else {
        fatalError("encoded snapshot with control characters: \(encoded.debugDescription)")
    }
    let decoded: Snapshot
    do {
        decoded = try SnapshotCodec.decode(encoded, source: snapshot.source)
    } catch {
        fatalError("cannot decode the encoded \(snapshot): \(error); encoded \(encoded.debugDescription)")
    }
    guard decoded == snapshot else { fatalError("\(snapshot) round-trips as \(decoded); encoded \(encoded.debugDescription)") }
    guard SnapshotCodec.encode(decoded) == encoded else { fatalError("encoding is not stable for \(encoded.debugDescription)") }
    for format in wireFormats {
        for details in [false, true] {
            for line in SnapshotView.lines(snapshot, format: format, details: details)
            where line.utf8.contains(where: { $0 < 0x20 && $0 != UInt8(ascii: "\t") }) {
                fatalError("\(format.name) line with a control character: \(line.debugDescription)")
            }
        }
    }
}

private func checkDescription(_ failure: SnapshotCodec.Failure) {
    guard !failure.description.unicodeScalars.contains(where: isControl) else {
        fatalError("error description with control characters: \(failure.description.debugDescription)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        check(try SnapshotCodec.decode(text, source: .daemon))
    } catch {
        checkDescription(error)
    }
    if let value = try? JSONParser.parse(text), case .array(let entries)? = value["snapshots"] {
        for entry in entries {
            do {
                check(try SnapshotCodec.decode(entry, source: .daemon))
            } catch {
                checkDescription(error)
            }
        }
    }
    return 0
}
