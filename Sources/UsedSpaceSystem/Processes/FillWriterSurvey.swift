import CLinux
import UsedSpaceCore

/// Who is filling a filesystem, among the calling user's own processes: looks at their write
/// counters (/proc/PID/io); between two looks, the fastest writers, and for each the file on
/// that filesystem it holds open for writing and has written furthest into (/proc/PID/fdinfo,
/// /proc/PID/fd). Other users' processes are skipped by their owner before anything of theirs is
/// read (the kernel would refuse their io and fds anyway). Each look reads /proc: it is
/// made only while a fast fill is active.
public struct FillWriterSurvey {
    /// The user's write counters at one moment.
    public struct Look: Sendable {
        fileprivate let counters: [Int32: ProcessWriteCounters]
        /// CLOCK_MONOTONIC, in ns.
        public let nanoseconds: UInt64
    }

    private let proc: String
    private let userID: UInt32

    public init(proc: String = "/proc", userID: UInt32 = getuid()) {
        self.proc = proc
        self.userID = userID
    }

    public func look(now: UInt64 = MonotonicClock.nanoseconds()) -> Look {
        Look(counters: counters(), nanoseconds: now)
    }

    /// Who wrote to the filesystem on `device` between two looks, fastest first (at most
    /// `limit`), and whether it grew meanwhile: its free space (df's Avail) at each look,
    /// nil when it did not say (FillWriters.init(window:)).
    public func writers(from start: Look, to end: Look, device: (major: UInt32, minor: UInt32), freeBefore: UInt64?, freeAfter: UInt64?,
                        limit: Int = 3, home: String?) -> FillWriters {
        guard end.nanoseconds > start.nanoseconds else { return FillWriters([], sawGrowth: false, home: home) }
        let seconds = Double(end.nanoseconds - start.nanoseconds) / 1e9
        let ranked = WriterRanking.rank(before: start.counters, after: end.counters, seconds: seconds,
                                        minimumBytesPerSecond: FillWriter.minimumBytesPerSecond)
        var writers: [FillWriter] = []
        for writer in ranked where writers.count < limit {
            // A process that writes only to pipes and sockets is not filling a filesystem.
            guard let file = fileBeingWritten(by: writer.pid, device: device) else { continue }
            writers.append(FillWriter(pid: writer.pid, command: writer.command, bytesPerSecond: writer.bytesPerSecond, file: file))
        }
        return FillWriters(window: writers, freeBefore: freeBefore, freeAfter: freeAfter, seconds: seconds, home: home)
    }

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
