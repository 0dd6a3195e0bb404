import CLinux
import UsedSpaceCore

/// Who is filling a filesystem, among the calling user's own processes: two looks at their
/// write counters (/proc/PID/io), the fastest writers between them, and for each the file on
/// that filesystem it holds open for writing and has written furthest into (/proc/PID/fdinfo,
/// /proc/PID/fd). Other users' processes are skipped by their owner before anything of theirs is
/// read (the kernel would refuse their io and fds anyway). Each look reads /proc: it is
/// made only while a fast fill is active.
public struct FillWriterSurvey {
    /// Writing slower than this is not filling anything worth naming.
    public static let minimumBytesPerSecond: UInt64 = 256 << 10

    private var last: (counters: [Int32: ProcessWriteCounters], nanoseconds: UInt64)?
    private let proc: String
    private let userID: UInt32

    public init(proc: String = "/proc", userID: UInt32 = getuid()) {
        self.proc = proc
        self.userID = userID
    }

    /// The writers since the last look, fastest first (at most `limit`); nil on the first
    /// look, which only takes the counters. Empty: none of the user's processes wrote fast.
    public mutating func look(device: (major: UInt32, minor: UInt32), limit: Int = 3,
                              now: UInt64 = MonotonicClock.nanoseconds()) -> [FillWriter]? {
        let counters = counters()
        defer { last = (counters, now) }
        guard let last, now > last.nanoseconds else { return nil }
        let ranked = WriterRanking.rank(before: last.counters, after: counters, seconds: Double(now - last.nanoseconds) / 1e9,
                                        minimumBytesPerSecond: Self.minimumBytesPerSecond)
        var writers: [FillWriter] = []
        for writer in ranked where writers.count < limit {
            // A process that writes only to pipes and sockets is not filling a filesystem.
            guard let file = fileBeingWritten(by: writer.pid, device: device) else { continue }
            writers.append(FillWriter(pid: writer.pid, command: writer.command, bytesPerSecond: writer.bytesPerSecond, file: file))
        }
        return writers
    }

    /// The fill is over: the next look starts afresh.
    public mutating func forget() { last = nil }

    private func counters() -> [Int32: ProcessWriteCounters] {
        var counters: [Int32: ProcessWriteCounters] = [:]
        for name in DirectoryListing.names(in: proc) {
            guard let pid = Int32(name), pid > 0 else { continue }
            let directory = proc + "/" + name
            guard let owner = try? FileStatus.of(directory), owner.ownerID == userID,
                  let io = try? FileContents.readText(directory + "/io", limit: 4096),
                  let stat = try? FileContents.readText(directory + "/stat", limit: 4096),
                  let comm = try? FileContents.readText(directory + "/comm", limit: 256),
                  let parsed = ProcessWriteCounters.parse(io: io, stat: stat, comm: comm) else { continue }
            counters[pid] = parsed
        }
        return counters
    }

    /// Read from /proc only, never from the filesystem the file is on (which may not answer):
    /// fdinfo's mount id, matched to the device in the writer's own mount table (its mount
    /// ids are its namespace's), and the file furthest written, as a download or a log is.
    private func fileBeingWritten(by pid: Int32, device: (major: UInt32, minor: UInt32)) -> String? {
        let directory = "\(proc)/\(pid)"
        guard let table = try? FileContents.readText(directory + "/mountinfo", limit: 4 << 20) else { return nil }
        let mounts = Set(MountInfoParser.parse(table).filter { $0.deviceMajor == device.major && $0.deviceMinor == device.minor }.map { $0.mountID })
        guard !mounts.isEmpty else { return nil }
        var furthest: (fd: String, position: UInt64)?
        for fd in DirectoryListing.names(in: directory + "/fdinfo") {
            guard let text = try? FileContents.readText(directory + "/fdinfo/" + fd, limit: 4096),
                  let file = ProcessWriteCounters.parse(fdinfo: text), file.forWriting, mounts.contains(file.mountID),
                  furthest.map({ file.position > $0.position }) ?? true else { continue }
            furthest = (fd, file.position)
        }
        return furthest.flatMap { Self.target(of: directory + "/fd/" + $0.fd) }
    }

    private static func target(of link: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(link, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
