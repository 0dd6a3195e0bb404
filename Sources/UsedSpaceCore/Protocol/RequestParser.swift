/// Parses one request line (without its newline). Requests come from anyone who can open
/// the socket, so everything is checked and every refusal says why.
public enum RequestParser {
    public static func parse<Bytes: Collection>(_ line: Bytes) -> Result<Request, RequestError> where Bytes.Element == UInt8 {
        var bytes = Array(line)
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard bytes.count <= ProtocolVersion.maximumRequestLength else {
            return .failure(RequestError(code: "too-long", message: "requests are at most \(ProtocolVersion.maximumRequestLength) bytes"))
        }
        guard !bytes.contains(0) else {
            return .failure(RequestError(code: "bad-request", message: "the request contains a NUL byte"))
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(RequestError(code: "bad-request", message: "the request is not valid UTF-8"))
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let verb = words.first?.lowercased() else {
            return .failure(RequestError(code: "bad-request", message: "empty request; try 'help'"))
        }
        let arguments = words.dropFirst()
        switch verb {
        case "hello", "version": return noArguments(.hello, verb, arguments)
        case "ping": return noArguments(.ping, verb, arguments)
        case "help": return noArguments(.help, verb, arguments)
        case "quit": return noArguments(.quit, verb, arguments)
        case "reload": return noArguments(.reload, verb, arguments)
        case "status": return view(arguments).map(Request.status)
        case "subscribe": return view(arguments).map(Request.subscribe)
        default:
            return .failure(RequestError(code: "unknown-request", message: "unknown request '\(printable(verb))'; try 'help'"))
        }
    }

    private static func noArguments(_ request: Request, _ verb: String, _ arguments: ArraySlice<Substring>) -> Result<Request, RequestError> {
        guard let extra = arguments.first else { return .success(request) }
        return .failure(RequestError(code: "bad-argument", message: "'\(verb)' takes no arguments, got '\(printable(extra))'"))
    }

    private static func view(_ arguments: ArraySlice<Substring>) -> Result<ViewRequest, RequestError> {
        var view = ViewRequest()
        for argument in arguments {
            let (key, value) = argument.firstIndex(of: "=").map {
                (argument[..<$0].lowercased(), Optional(String(argument[argument.index(after: $0)...])))
            } ?? (argument.lowercased(), nil)
            switch (key, value) {
            case ("details", nil):
                view.details = true
            case ("all", nil):
                view.all = true
            case ("format", let name?):
                guard let format = WireFormat(name: name) else { return .failure(badFormat(name)) }
                view.format = format
            case ("path", let encoded?):
                guard let path = PercentEncoding.decode(encoded), path.hasPrefix("/"), !path.contains("\0") else {
                    return .failure(RequestError(code: "bad-argument", message: "path= needs an absolute, percent-encoded path"))
                }
                view.path = path
            case (let name, nil) where WireFormat(name: name) != nil:
                view.format = WireFormat(name: name)!
            default:
                return .failure(RequestError(code: "bad-argument", message: "unknown argument '\(printable(argument))'; see 'help'"))
            }
        }
        if view.all && view.path != nil {
            return .failure(RequestError(code: "bad-argument", message: "'all' and 'path=' exclude each other"))
        }
        return .success(view)
    }

    private static func badFormat(_ name: String) -> RequestError {
        RequestError(code: "bad-argument", message: "unknown format '\(printable(name))'; the formats are \(OutputFormat.names), snapshot")
    }

    /// Echoes a piece of a request in an error without letting it run on or inject controls.
    static func printable(_ text: some StringProtocol) -> String {
        let limited = text.count > 64 ? text.prefix(64) + "…" : Substring(text)
        return ControlCharacters.replaced(in: String(limited))
    }
}
