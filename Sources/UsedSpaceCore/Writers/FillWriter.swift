/// One of the user's own processes found writing fast to a filesystem that is filling fast,
/// and the file it is growing there when one is found.
public struct FillWriter: Equatable, Sendable {
    public var pid: Int32
    public var command: String
    /// How fast it wrote between the two looks at its counters.
    public var bytesPerSecond: UInt64
    /// The regular file on that filesystem it holds open for writing and wrote to last.
    public var file: String?

    public init(pid: Int32, command: String, bytesPerSecond: UInt64, file: String? = nil) {
        self.pid = pid
        self.command = command
        self.bytesPerSecond = bytesPerSecond
        self.file = file
    }

    /// "python3 (pid 4242) writing ~/Downloads/x.iso", with the home directory as `~`.
    public func description(home: String?) -> String {
        let who = "\(command) (pid \(pid))"
        guard let file else { return who }
        return who + " writing " + ControlCharacters.replaced(in: Self.abbreviated(file, home: home))
    }

    /// What is said when none of the user's processes is writing: the space goes to someone
    /// the user's processes cannot see.
    public static let nobodyOfYours = "another user or the system"

    static func abbreviated(_ path: String, home: String?) -> String {
        guard let home, !home.isEmpty, home != "/" else { return path }
        if path == home { return "~" }
        let prefix = home.hasSuffix("/") ? home : home + "/"
        return path.hasPrefix(prefix) ? "~/" + path.dropFirst(prefix.count) : path
    }
}

/// The user's processes filling a filesystem, as a client looked them up (FillWriterSurvey),
/// with the user's home, which the files under it are shown relative to.
public struct FillWriters: Equatable, Sendable {
    /// Fastest first; empty when none of the user's processes writes there.
    public var writers: [FillWriter]
    public var home: String?

    public init(_ writers: [FillWriter], home: String?) {
        self.writers = writers
        self.home = home
    }
}

/// Who wrote fastest between two looks at the user's processes: the same processes (pid and
/// start time) in both, by the growth of the larger of their two write counters, fastest
/// first; a process that wrote less than `minimumBytesPerSecond` is not a writer.
public enum WriterRanking {
    public struct Ranked: Equatable, Sendable {
        public var pid: Int32
        public var command: String
        public var bytesPerSecond: UInt64
    }

    public static func rank(before: [Int32: ProcessWriteCounters], after: [Int32: ProcessWriteCounters],
                            seconds: Double, minimumBytesPerSecond: UInt64) -> [Ranked] {
        guard seconds > 0 else { return [] }
        var ranked: [Ranked] = []
        for (pid, now) in after {
            guard let then = before[pid], then.startTime == now.startTime else { continue }
            let written = now.writtenBytes >= then.writtenBytes ? now.writtenBytes - then.writtenBytes : 0
            let stored = now.storedBytes >= then.storedBytes ? now.storedBytes - then.storedBytes : 0
            let rate = Double(max(written, stored)) / seconds
            guard rate >= Double(minimumBytesPerSecond), rate < Double(UInt64.max) else { continue }
            ranked.append(Ranked(pid: pid, command: now.command, bytesPerSecond: UInt64(rate)))
        }
        return ranked.sorted { ($0.bytesPerSecond, $1.pid) > ($1.bytesPerSecond, $0.pid) }
    }
}

extension FillWriter {
    /// The writer as a JSON object, as `fast_fill.writers` and the writers helper's answer
    /// both write it: pid, command, bytes_per_second, file.
    public var jsonObject: String {
        var object = JSONObjectWriter()
        object.add("pid", Int(pid))
        object.add("command", command)
        object.add("bytes_per_second", bytesPerSecond)
        object.add("file", file)
        return object.finish()
    }
}
