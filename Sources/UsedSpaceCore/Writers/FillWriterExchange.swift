/// What the daemon and its helper (usedspace-writers@.service, `usedspaced --name-writers`)
/// say to each other, one line each way. The daemon's sandbox (PrivateUsers=) cannot read
/// the user's processes, so it asks the helper, which runs outside it:
///
///     → /mnt/data%20disk                      the mount point, percent-encoded
///     ← {"writers":[{"pid":4242,"command":"python3","bytes_per_second":50000000,"file":"/home/u/x.iso"}],"grew":true}
///     ← {"error":"nothing is mounted at /mnt/data disk"}
///
/// `grew`: the filesystem grew while the helper looked (FillWriters.sawGrowth); absent from
/// an older helper, whose empty list meant that someone else wrote.
///
/// Each side takes the other's line as untrusted: any process of the user can bind a socket
/// where the helper's should be. A line that is not exactly this shape is refused whole.
public enum FillWriterExchange {
    public static let maximumWriters = 3
    static let maximumCommandBytes = 64
    static let maximumPathBytes = 4096
    /// The longest line either side reads: three writers with the longest command and path,
    /// every byte of them written escaped (`\u007f`: 6 bytes), and the rest of each object.
    public static let maximumLineBytes = maximumWriters * (6 * (maximumCommandBytes + maximumPathBytes) + 128) + 32

    public enum Outcome: Equatable, Sendable {
        /// Fastest first; empty when none of the user's processes writes there. `grew`: the
        /// filesystem grew meanwhile.
        case writers([FillWriter], grew: Bool)
        /// The helper could not look (its reason, cleaned for a log).
        case failed(String)
    }

    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    // MARK: - The question

    public static func question(mountPoint: String) -> String {
        PercentEncoding.encode(mountPoint) + "\n"
    }

    /// The mount point asked about (without the newline), or nil when it is not an absolute
    /// path.
    public static func mountPoint(inQuestion line: String) -> String? {
        guard line.utf8.count <= maximumPathBytes * 3, let path = PercentEncoding.decode(line),
              path.hasPrefix("/"), path.utf8.count <= maximumPathBytes, !path.utf8.contains(0) else { return nil }
        return path
    }

    // MARK: - The answer

    public static func answer(_ found: FillWriters) -> String {
        "{\"writers\":[" + found.writers.prefix(maximumWriters).map { $0.jsonObject }.joined(separator: ",") + "],\"grew\":\(found.sawGrowth)}\n"
    }

    public static func answer(failure reason: String) -> String {
        var object = JSONObjectWriter()
        object.add("error", reason)
        return object.finish() + "\n"
    }

    /// The helper's line (with or without its newline).
    public static func outcome<Bytes: Collection>(of line: Bytes) throws(Refusal) -> Outcome where Bytes.Element == UInt8 {
        guard line.count <= maximumLineBytes else { throw Refusal(description: "an answer longer than \(maximumLineBytes) bytes") }
        var bytes = Array(line)
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        guard !bytes.contains(UInt8(ascii: "\n")) else { throw Refusal(description: "an answer of more than one line") }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, maximumDepth: 4) } catch { throw Refusal(description: error.description) }
        guard case .object(let members) = value else { throw Refusal(description: "an answer that is not a JSON object") }
        if let error = members["error"] {
            guard members.count == 1, let reason = error.stringValue else { throw Refusal(description: "a malformed error") }
            // Cleaned before it is cut: "\r\n" is one Character but becomes two.
            return .failed(String(ControlCharacters.replaced(in: reason).prefix(200)))
        }
        var grew = true
        switch members["grew"] {
        case nil: break
        case .bool(let value)?: grew = value
        default: throw Refusal(description: "a grew that is not true or false")
        }
        guard members.count == 1 + (members["grew"] == nil ? 0 : 1), case .array(let list)? = members["writers"] else {
            throw Refusal(description: "no writers list")
        }
        return .writers(try writers(list), grew: grew || !list.isEmpty)
    }

    /// A list of writers as the answer writes it (and the snapshot line: SnapshotCodec).
    static func writers(_ list: [JSONValue]) throws(Refusal) -> [FillWriter] {
        guard list.count <= maximumWriters else { throw Refusal(description: "more than \(maximumWriters) writers") }
        var writers: [FillWriter] = []
        for item in list { writers.append(try writer(item)) }
        return writers
    }

    private static func writer(_ value: JSONValue) throws(Refusal) -> FillWriter {
        guard case .object(let members) = value else { throw Refusal(description: "a writer that is not an object") }
        guard let pid = members["pid"]?.intValue, pid > 0, pid <= Int(Int32.max) else { throw Refusal(description: "a writer without a valid pid") }
        guard let command = members["command"]?.stringValue, !command.isEmpty, command.utf8.count <= maximumCommandBytes else {
            throw Refusal(description: "a writer without a valid command")
        }
        guard let rate = members["bytes_per_second"]?.uint64Value else { throw Refusal(description: "a writer without a valid rate") }
        var file: String?
        switch members["file"] {
        case nil, .null?:
            file = nil
        case .string(let path)?:
            guard path.hasPrefix("/"), path.utf8.count <= maximumPathBytes, !path.utf8.contains(0) else {
                throw Refusal(description: "a writer's file that is not an absolute path")
            }
            file = path
        default:
            throw Refusal(description: "a writer's file that is not a string")
        }
        guard members.count == 3 + (members["file"] == nil ? 0 : 1) else { throw Refusal(description: "a writer with unknown fields") }
        return FillWriter(pid: Int32(pid), command: ControlCharacters.replaced(in: command), bytesPerSecond: rate, file: file)
    }
}
