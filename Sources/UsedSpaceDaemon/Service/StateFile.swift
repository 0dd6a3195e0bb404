import UsedSpaceCore

/// The state file's format: the last published snapshot of every watched path.
///
///     {"format":"usedspace-state","version":1,"snapshots":[
///     {…one snapshot, SnapshotCodec…},
///     ]}
enum StateFile {
    static let format = "usedspace-state"
    static let maximumSize = 1 << 20

    static func encode(_ snapshots: [Snapshot]) -> String {
        "{\"format\":\"\(format)\",\"version\":\(SnapshotCodec.formatVersion),\"snapshots\":[\n"
            + snapshots.map(SnapshotCodec.encode).joined(separator: ",\n")
            + "\n]}\n"
    }

    struct Contents {
        var snapshots: [Snapshot]
        /// Entries that could not be read, with why; the rest are still used.
        var problems: [String]
    }

    enum Failure: Error, CustomStringConvertible {
        case invalid(String)
        case foreign(String)

        var description: String {
            switch self {
            case .invalid(let reason): return reason
            case .foreign(let reason): return "not a usedspace state file (\(reason))"
            }
        }
    }

    static func decode(_ text: String) throws(Failure) -> Contents {
        let value: JSONValue
        do { value = try JSONParser.parse(text) } catch { throw .invalid(error.description) }
        guard value["format"]?.stringValue == format else { throw .foreign("its \"format\" is not \"\(format)\"") }
        guard value["version"]?.intValue == SnapshotCodec.formatVersion else {
            let found = value["version"].map { $0.intValue.map(String.init) ?? "not a number" } ?? "missing"
            throw .foreign("version \(found), this daemon reads \(SnapshotCodec.formatVersion)")
        }
        guard case .array(let entries)? = value["snapshots"] else { throw .invalid("\"snapshots\" is not an array") }
        var contents = Contents(snapshots: [], problems: [])
        for (index, entry) in entries.enumerated() {
            do {
                contents.snapshots.append(try SnapshotCodec.decode(entry, source: .daemon))
            } catch {
                contents.problems.append("snapshot \(index + 1): \(error)")
            }
        }
        return contents
    }
}
