import CSystemd
import Glibc
import Logging
import UsedSpaceSystem

/// Sends log events to journald as structured entries (sd_journal_sendv: the variadic
/// sd_journal_send cannot be called from Swift). Metadata becomes fields named
/// USEDSPACE_<KEY>, so `journalctl USEDSPACE_PATH=/home` finds them.
struct JournalLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    let identifier: String

    init(identifier: String) {
        self.identifier = identifier
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(Self.priority(event.level))",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
        ]
        if let error = event.error { fields.append("USEDSPACE_ERROR=\(error)") }
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            fields.append("USEDSPACE_\(Self.fieldName(key))=\(value)")
        }
        Self.send(fields)
    }

    /// Journal field names: upper-case letters, digits and underscores.
    static func fieldName(_ key: String) -> String {
        String(key.uppercased().unicodeScalars.map { scalar -> Character in
            (scalar.isASCII && (scalar.properties.isUppercase || ("0"..."9").contains(scalar))) ? Character(scalar) : "_"
        })
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    private static func send(_ fields: [String]) {
        // Values may hold newlines (binary-safe framing is done by sd_journal_sendv itself).
        var storage = fields.map { Array($0.utf8) }
        var vectors: [iovec] = []
        vectors.reserveCapacity(storage.count)
        for index in storage.indices {
            storage[index].withUnsafeMutableBytes { vectors.append(iovec(iov_base: $0.baseAddress, iov_len: $0.count)) }
        }
        // The pointers above stay valid: `storage` is not mutated again before this call.
        withExtendedLifetime(storage) {
            _ = sd_journal_sendv(vectors, Int32(vectors.count))
        }
    }

    /// Whether stderr is connected to the journal (systemd sets JOURNAL_STREAM to its
    /// device and inode), the test sd-journal's own documentation recommends.
    static var stderrIsJournal: Bool {
        guard let stream = ProcessEnvironment.value("JOURNAL_STREAM") else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
