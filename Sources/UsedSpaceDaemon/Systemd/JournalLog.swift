import CLinux
import CSystemd
import UsedSpaceSystem

/// Log lines to journald as structured entries (sd_journal_sendv: the variadic
/// sd_journal_send cannot be called from Swift). Metadata becomes fields named
/// USEDSPACE_<KEY>, so `journalctl USEDSPACE_PATH=/home` finds them.
enum JournalLog {
    static func send(identifier: String, level: Logger.Level, message: String, metadata: Logger.Metadata,
                     file: StaticString, function: StaticString, line: UInt) {
        var fields = [
            "MESSAGE=\(message)",
            "PRIORITY=\(priority(level))",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(file)",
            "CODE_LINE=\(line)",
            "CODE_FUNC=\(function)",
        ]
        for (key, value) in metadata { fields.append("USEDSPACE_\(fieldName(key))=\(value)") }
        send(fields)
    }

    /// Journal field names: upper-case letters, digits and underscores (our keys are ASCII).
    static func fieldName(_ key: String) -> String {
        String(decoding: key.utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - 0x20
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): byte
            default: UInt8(ascii: "_")
            }
        }, as: UTF8.self)
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
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
