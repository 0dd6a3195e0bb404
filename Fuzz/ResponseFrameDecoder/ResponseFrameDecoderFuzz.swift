// libFuzzer target for ResponseFrameDecoder: what a client reads from the daemon's socket,
// in arbitrary chunks. Built only with USEDSPACE_FUZZ=1; bench/fuzz.sh builds and runs it.
// Besides "no crash", it checks:
// - the outcome does not depend on how the input is cut: fed whole, split at one point and
//   in chunks of data-dependent sizes, the decoder gives the same frames, or the same error;
// - every frame has as many lines as its header says;
// - the daemon's framing and the decoder agree: ResponseFrame.ok(lines), for lines cut from
//   the input at NUL bytes (so they may hold newlines), decodes to exactly one frame whose
//   lines joined by newlines are the input's lines joined by newlines.
import UsedSpaceCore

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

private struct Outcome: Equatable {
    var frames: [ResponseFrameDecoder.Frame] = []
    var failure: ResponseFrameDecoder.Failure?
}

/// Feeds the chunks in order; stops at the first error, as a client does.
private func decode(_ chunks: [UnsafeBufferPointer<UInt8>.SubSequence]) -> Outcome {
    var decoder = ResponseFrameDecoder()
    var outcome = Outcome()
    for chunk in chunks {
        do {
            outcome.frames += try decoder.feed(chunk)
        } catch {
            outcome.failure = error
            return outcome
        }
    }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let whole = decode([input[...]])
    for frame in whole.frames {
        switch frame.header {
        case .ok(let count), .update(let count):
            guard frame.lines.count == count else { fatalError("\(frame.header) with \(frame.lines.count) lines") }
        case .error(let code, _):
            guard frame.lines.isEmpty, !code.contains(" ") else { fatalError("error frame \(frame)") }
        }
    }
    if let failure = whole.failure { _ = failure.description }

    var random = SplitMix64(input)
    let point = size == 0 ? 0 : Int(random.next() % UInt64(size + 1))
    let split = decode([input[..<point], input[point...]])
    var chunks: [UnsafeBufferPointer<UInt8>.SubSequence] = []
    var start = 0
    while start < size {
        let end = min(size, start + Int(random.next() % 17))
        chunks.append(input[start..<end])
        start = end
    }
    let chunked = decode(chunks)
    // Frames completed by the chunk that fails are lost with the error: compare errors only then.
    if whole.failure == nil {
        guard split == whole else { fatalError("split at \(point): \(split) instead of \(whole)") }
        guard chunked == whole else { fatalError("in chunks: \(chunked) instead of \(whole)") }
    } else {
        guard split.failure == whole.failure, chunked.failure == whole.failure else {
            fatalError("errors differ: whole \(String(describing: whole.failure)), split \(String(describing: split.failure)), chunks \(String(describing: chunked.failure))")
        }
    }

    // The daemon's side: any lines, framed, must come back as one frame with the same text
    // (a line break inside a line, "\n" or "\r\n", becomes a line break between lines).
    let lines = String(decoding: input, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
    let framed = Array(ResponseFrame.ok(lines).utf8)
    let back = framed.withUnsafeBufferPointer { decode([$0[...]]) }
    guard back.failure == nil, back.frames.count == 1, case .ok = back.frames[0].header,
          back.frames[0].lines == ResponseFrame.bodyLines(lines)
    else { fatalError("ResponseFrame.ok(\(lines)) = \(String(decoding: framed, as: UTF8.self).debugDescription) decodes as \(back)") }
    return 0
}
