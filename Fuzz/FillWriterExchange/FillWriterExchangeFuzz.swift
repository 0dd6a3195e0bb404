// libFuzzer target for FillWriterExchange: the line the daemon reads from its writers helper
// (usedspace-writers.socket), which any process of the user could answer in its place, and
// the question the helper reads. Built only with USEDSPACE_FUZZ=1; bench/fuzz.sh builds and
// runs it. Besides "no crash", it checks:
// - what is taken is what FillWriterExchange promises: at most 3 writers, each with a pid
//   above 0, a command of 1 to 64 bytes without control characters, and an absolute path
//   or none; an error's reason without control characters, at most 200 characters;
// - what is taken, written again by the helper's side, reads back the same;
// - a question's mount point, when taken, is absolute, and asked again reads back the same.
import UsedSpaceCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    if let outcome = try? FillWriterExchange.outcome(of: input) {
        switch outcome {
        case .writers(let writers, let grew):
            precondition(writers.count <= FillWriterExchange.maximumWriters)
            for writer in writers {
                precondition(writer.pid > 0 && !writer.command.isEmpty && writer.command.utf8.count <= 64)
                precondition(!writer.command.unicodeScalars.contains(where: ControlCharacters.isControl))
                precondition(writer.file.map { $0.hasPrefix("/") && $0.utf8.count <= 4096 } ?? true)
            }
            precondition((try? FillWriterExchange.outcome(of: Array(FillWriterExchange.answer(FillWriters(writers, sawGrowth: grew, home: nil)).utf8))) == outcome)
        case .failed(let reason):
            precondition(reason.count <= 200 && !reason.unicodeScalars.contains(where: ControlCharacters.isControl))
            precondition((try? FillWriterExchange.outcome(of: Array(FillWriterExchange.answer(failure: reason).utf8))) == outcome)
        }
    }
    let line = String(decoding: input, as: UTF8.self)
    if let mountPoint = FillWriterExchange.mountPoint(inQuestion: line) {
        precondition(mountPoint.hasPrefix("/"))
        precondition(FillWriterExchange.mountPoint(inQuestion: String(FillWriterExchange.question(mountPoint: mountPoint).dropLast())) == mountPoint)
    }
    return 0
}
