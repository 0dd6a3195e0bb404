/// What /proc says of one process's writing: its write counters (`/proc/PID/io`), when it
/// started (`/proc/PID/stat`, so a reused pid is not taken for the process before), and its
/// name (`/proc/PID/comm`). Readable without privileges for one's own processes only.
public struct ProcessWriteCounters: Equatable, Sendable {
    public var command: String
    /// Field 22 of /proc/PID/stat, in clock ticks since boot.
    public var startTime: UInt64
    /// `wchar`: bytes passed to write(2) and its kin, whatever the file. On tmpfs, the only
    /// counter that moves (tmpfs has no writeback, so `write_bytes` stays 0).
    public var writtenBytes: UInt64
    /// `write_bytes`: bytes sent to the storage layer (0 on tmpfs).
    public var storedBytes: UInt64

    public init(command: String, startTime: UInt64, writtenBytes: UInt64, storedBytes: UInt64) {
        self.command = command
        self.startTime = startTime
        self.writtenBytes = writtenBytes
        self.storedBytes = storedBytes
    }

    /// The counters from the three files' texts; nil when one is not what the kernel writes.
    public static func parse(io: String, stat: String, comm: String) -> ProcessWriteCounters? {
        var written: UInt64?, stored: UInt64?
        for line in io.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = UInt64(parts[1].drop { $0 == " " })
            switch parts[0] {
            case "wchar": written = value
            case "write_bytes": stored = value
            default: break
            }
        }
        // The command in stat is in parentheses and may hold spaces and ')': the fields
        // that follow start after the last ')'.
        guard let written, let stored, let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, starttime field 22.
        guard fields.count > 19, let startTime = UInt64(fields[19]) else { return nil }
        var command = Substring(comm)
        if command.last == "\n" { command = command.dropLast() }
        return ProcessWriteCounters(command: ControlCharacters.replaced(in: String(command)), startTime: startTime,
                                    writtenBytes: written, storedBytes: stored)
    }

    /// What `/proc/PID/fdinfo/N` says of an open file: its offset, the mount it is on (an id
    /// of the process's own mount table) and whether it was opened for writing (`flags:` in
    /// octal, O_WRONLY or O_RDWR). nil when a field is missing or not a number.
    public struct OpenFile: Equatable, Sendable {
        public var position: UInt64
        public var mountID: Int
        public var forWriting: Bool
    }

    public static func parse(fdinfo: String) -> OpenFile? {
        var position: UInt64?, mountID: Int?, flags: UInt32?
        for line in fdinfo.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = parts[1].drop { $0 == " " || $0 == "\t" }
            switch parts[0] {
            case "pos": position = UInt64(value)
            case "mnt_id": mountID = Int(value)
            case "flags": flags = UInt32(value, radix: 8)
            default: break
            }
        }
        guard let position, let mountID, let flags else { return nil }
        return OpenFile(position: position, mountID: mountID, forWriting: flags & 0o3 != 0)
    }
}
