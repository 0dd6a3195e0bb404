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

    /// What is said when the filesystem grew and none of the user's processes wrote there:
    /// the space goes to someone the user's processes cannot see.
    public static let nobodyOfYours = "another user or the system"

    /// What is said when a look saw nobody write: the filesystem did not grow while it looked
    /// (a writer that writes now and then, between two of its writes).
    public static let noneSeen = "no writer seen"

    /// Writing slower than this is not filling anything worth naming, and a filesystem that
    /// grew slower than this did not grow.
    public static let minimumBytesPerSecond: UInt64 = 256 << 10

    static func abbreviated(_ path: String, home: String?) -> String {
        guard let home, !home.isEmpty, home != "/" else { return path }
        if path == home { return "~" }
        let prefix = home.hasSuffix("/") ? home : home + "/"
        return path.hasPrefix(prefix) ? "~/" + path.dropFirst(prefix.count) : path
    }
}

/// Who was seen filling a filesystem in one window of looks (FillWriterSurvey): the user's
/// own processes writing there fastest, and whether the filesystem grew meanwhile; with the
/// user's home, which the files under it are shown relative to.
public struct FillWriters: Equatable, Sendable {
    /// Fastest first; empty when none of the user's processes wrote there.
    public var writers: [FillWriter]
    /// The filesystem grew (its free space shrank) in the same window, by at least what a
    /// writer must write to be named; always, when one of the user's processes is named.
    /// Without one, someone else wrote: "another user or the system".
    public var sawGrowth: Bool
    public var home: String?

    public init(_ writers: [FillWriter], sawGrowth: Bool, home: String?) {
        self.writers = writers
        self.sawGrowth = sawGrowth || !writers.isEmpty
        self.home = home
    }

    /// One window from `seconds` of looks: the user's `writers` in it, and the free space
    /// (df's Avail) at its start and end, nil when the filesystem did not say.
    public init(window writers: [FillWriter], freeBefore: UInt64?, freeAfter: UInt64?, seconds: Double, home: String?) {
        var grew = false
        if let freeBefore, let freeAfter, freeBefore > freeAfter {
            grew = Double(freeBefore - freeAfter) >= Double(FillWriter.minimumBytesPerSecond) * seconds
        }
        self.init(writers, sawGrowth: grew, home: home)
    }

    /// What is said after this, once a later look of the same fill says `new`: a look that
    /// saw nobody write (no growth) keeps what the last one that did said, since nobody
    /// else wrote meanwhile.
    public func followed(by new: FillWriters) -> FillWriters {
        new.sawGrowth ? new : self
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
