// libFuzzer target for Template.parse and rendering: a template from the configuration file
// or the command line. Built only with USEDSPACE_FUZZ=1; bench/fuzz.sh builds and runs it.
// Besides "no crash", it checks:
// - parsing is deterministic, and a refusal points at a character of the template, with a
//   message without control characters;
// - an accepted template renders, for a full, an empty and a failed snapshot, to text with
//   no control character but the template's own tabs: nothing in a bar's line protocol can
//   be broken by a template.
import UsedSpaceCore

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
}

private let snapshots: [Snapshot] = {
    let time = Timestamp(secondsSinceEpoch: 0)
    let full = FilesystemStats(blockSize: 4096, totalBlocks: 1000, freeBlocks: 0, availableBlocks: 0, totalInodes: 10, freeInodes: 0, readOnly: true)
    let empty = FilesystemStats(blockSize: 1, totalBlocks: UInt64.max, freeBlocks: UInt64.max, availableBlocks: UInt64.max / 2)
    return [
        Snapshot(path: "/a\tb", mountPoint: "/", fileSystemType: "ext4", stats: full, state: .fresh, seq: 1, sampledAt: time, source: .daemon),
        Snapshot(path: "/", mountPoint: "/", fileSystemType: "btrfs", stats: empty, state: .stale, seq: 2, sampledAt: time, source: .direct, error: "slow\n"),
        Snapshot(path: "/x", mountPoint: nil, fileSystemType: nil, stats: nil, state: .failed, seq: 3, sampledAt: time, source: .daemon, error: "gone"),
    ]
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let result = Result { () throws(TemplateError) in try Template.parse(text) }
    let again = Result { () throws(TemplateError) in try Template.parse(text) }
    guard result == again else { fatalError("parse is not deterministic") }
    switch result {
    case .failure(let error):
        guard error.offset >= 0, error.offset <= max(text.count, Template.maximumLength) else { fatalError("offset \(error.offset) outside the template") }
        guard !error.message.isEmpty, !error.message.unicodeScalars.contains(where: isControl) else {
            fatalError("message with control characters: \(error.message.debugDescription)")
        }
    case .success(let template):
        for snapshot in snapshots {
            for icons in [[], ["▁", "█"]] {
                let rendered = template.text(TemplateContext(snapshot: snapshot, label: "l\u{1B}", unit: .iec, barCells: 7, icons: icons))
                guard !rendered.unicodeScalars.contains(where: { $0 != "\t" && isControl($0) }) else {
                    fatalError("rendered a control character: \(rendered.debugDescription) from \(text.debugDescription)")
                }
            }
        }
    }
    return 0
}
