// libFuzzer target for RequestParser.parse: one request line (without its newline) from
// anyone who can open the daemon's socket. Built only with USEDSPACE_FUZZ=1; bench/fuzz.sh
// builds and runs it. Besides "no crash", it checks:
// - a refusal has a known code, and its `error` frame is exactly one line without control
//   characters that the client's header parser reads back as the same code and message;
// - only valid UTF-8 without NUL, at most the maximum length, is ever accepted;
// - an accepted status/subscribe request, written back with ViewRequest.requestLine (as the
//   client does), parses to the same request.
import UsedSpaceCore

private let codes: Set<String> = ["bad-request", "unknown-request", "bad-argument", "too-long"]

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = UnsafeBufferPointer(start: data, count: size)
    let result = RequestParser.parse(line)
    guard RequestParser.parse(line) == result else { fatalError("parse is not deterministic") }
    switch result {
    case .failure(let error):
        guard codes.contains(error.code) else { fatalError("unknown error code '\(error.code)'") }
        guard !error.message.isEmpty, !error.message.unicodeScalars.contains(where: isControl) else {
            fatalError("error message with control characters: \(error.message.debugDescription)")
        }
        let frame = ResponseFrame.error(error)
        guard frame.utf8.last == UInt8(ascii: "\n"), frame.utf8.filter({ $0 == UInt8(ascii: "\n") }).count == 1,
              !frame.unicodeScalars.dropLast().contains(where: isControl)
        else { fatalError("error frame is not one clean line: \(frame.debugDescription)") }
        guard ResponseFrame.parseHeader(String(frame.dropLast())) == .error(code: error.code, message: error.message) else {
            fatalError("the client reads the error frame differently: \(frame.debugDescription)")
        }
    case .success(let request):
        var bytes = Array(line)
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard bytes.count <= ProtocolVersion.maximumRequestLength, !bytes.contains(0),
              String(validating: bytes, as: UTF8.self) != nil
        else { fatalError("accepted a request that is too long, has NUL or is not UTF-8") }
        let reparsed: Request
        switch request {
        case .status(let view), .subscribe(let view):
            if let path = view.path, !path.hasPrefix("/") || path.contains("\0") {
                fatalError("accepted path \(path.debugDescription)")
            }
            let verb = if case .status = request { "status" } else { "subscribe" }
            let written = view.requestLine(verb: verb)
            guard written.utf8.last == UInt8(ascii: "\n"), written.utf8.filter({ $0 == UInt8(ascii: "\n") }).count == 1 else {
                fatalError("requestLine is not one line: \(written.debugDescription)")
            }
            let text = Array(written.utf8.dropLast())
            // A path near the limit may not fit once percent-encoded: the client refuses it.
            guard text.count <= ProtocolVersion.maximumRequestLength else { return 0 }
            guard case .success(let again) = RequestParser.parse(text) else {
                fatalError("requestLine \(written.debugDescription) is refused")
            }
            reparsed = again
        case .hello, .ping, .help, .quit, .reload:
            reparsed = request
        }
        guard reparsed == request else { fatalError("\(request) written back reads as \(reparsed)") }
    }
    return 0
}
