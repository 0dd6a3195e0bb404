import UsedSpaceCore

/// The state file's format: the last published snapshot of every watched path, with the
/// path as the daemon watches it (`~` expanded), so that a restarted daemon finds each
/// watch's snapshot without resolving any path (which could hang on a dead mount).
///
///     {"format":"usedspace-state","version":2,"seq_reserved":1042,"snapshots":[
///     {"watch":"/home/u","snapshot":{…one snapshot, SnapshotCodec…}},
///     ]}
///
/// `seq_reserved`: no snapshot of the daemon that wrote it has a higher seq. The file is
/// written at most once a minute (StateSaver), so after a crash it may be behind what
/// clients saw; the reservation is above that, and a restarted daemon goes on above it.
/// Version 1 (before 0.2) held the snapshots alone; it is still read.
enum StateFile {
    static let format = "usedspace-state"
    static let version = 2
    static let maximumSize = 1 << 20

    struct Entry: Equatable {
        /// The watched path, as expanded; nil in a version 1 file.
        var watch: String?
        var snapshot: Snapshot
    }

    static func encode(_ entries: [Entry], reservedSeq: UInt64) -> String {
        "{\"format\":\"\(format)\",\"version\":\(version),\"seq_reserved\":\(reservedSeq),\"snapshots\":[\n"
            + entries.map { entry in
                var saved = entry.snapshot
                // What the daemon thinks of its configuration, and who was writing a moment
                // ago, are not the filesystem's state.
                saved.configurationProblem = nil
                saved.fillWriters = nil
                return "{\"watch\":" + JSONObjectWriter.quoted(entry.watch ?? saved.path) + ",\"snapshot\":" + SnapshotCodec.encode(saved) + "}"
            }.joined(separator: ",\n")
            + "\n]}\n"
    }

    struct Contents {
        var entries: [Entry]
        /// Entries that could not be read, with why; the rest are still used.
        var problems: [String]
        /// The seq the next daemon goes on above (0: none in the file).
        var reservedSeq: UInt64 = 0
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
        let found = value["version"]?.intValue
        guard found == 1 || found == version else {
            let shown = value["version"].map { $0.intValue.map(String.init) ?? "not a number" } ?? "missing"
            throw .foreign("version \(shown), this daemon reads 1 and \(version)")
        }
        guard case .array(let items)? = value["snapshots"] else { throw .invalid("\"snapshots\" is not an array") }
        var contents = Contents(entries: [], problems: [])
        if let reserved = value["seq_reserved"] {
            if let seq = reserved.uint64Value, seq <= SnapshotCodec.maximumSequenceNumber {
                contents.reservedSeq = seq
            } else {
                contents.problems.append("\"seq_reserved\" is not an integer from 0 to 2^53 - 1")
            }
        }
        for (index, item) in items.enumerated() {
            do throws(SnapshotCodec.Failure) {
                if found == 1 {
                    contents.entries.append(Entry(watch: nil, snapshot: try SnapshotCodec.decode(item, source: .daemon)))
                } else {
                    guard let watch = item["watch"]?.stringValue, watch.hasPrefix("/"), let snapshot = item["snapshot"] else {
                        contents.problems.append("snapshot \(index + 1): no \"watch\" path or no \"snapshot\"")
                        continue
                    }
                    contents.entries.append(Entry(watch: watch, snapshot: try SnapshotCodec.decode(snapshot, source: .daemon)))
                }
            } catch {
                contents.problems.append("snapshot \(index + 1): \(error)")
            }
        }
        return contents
    }

    /// The snapshot saved for the watched path `path` (as expanded), with its seq raised to
    /// the reservation: served again, it comes after whatever clients saw before a crash.
    static func snapshot(for path: String, in contents: Contents) -> Snapshot? {
        let entries = contents.entries
        guard var snapshot = entries.first(where: { $0.watch == path })?.snapshot
                ?? entries.first(where: { $0.watch == nil && $0.snapshot.path == path })?.snapshot else { return nil }
        snapshot.seq = max(snapshot.seq, contents.reservedSeq)
        return snapshot
    }
}
