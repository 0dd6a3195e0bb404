import CLinux
import UsedSpaceCore

/// statvfs of many mounts at once, none of which can hold up the others or the caller
/// (`usedspace list`).
///
/// A mount of a known local type (RealFilesystems.isKnownLocal: block devices, tmpfs) is
/// measured here: its statvfs answers from memory, and forking costs more than that. Any
/// other (network, FUSE, unknown) is measured in a child process of its own, all children
/// at once, and whatever has not answered by the deadline is given up on: the child is
/// left to exit when its filesystem answers (IsolatedChild). The mount point is touched
/// only by statvfs, in the child for those that may hang: never stat(2)ed here.
///
/// The children run Swift code after fork(2): the client's own malloc holds its lock across a
/// fork (Allocator.c), but other locks another thread may hold then (the normal build's Swift
/// runtime's) do not, so only one thread of a process calls this.
public enum MountSurvey {
    public enum Outcome: Equatable, Sendable {
        case measured(FilesystemStats)
        /// statvfs failed: its message ("permission denied").
        case failed(String)
        /// No answer before the deadline: a hung mount.
        case notAnswering
    }

    public static func measure(_ entries: [MountEntry], timeoutMilliseconds: Int32) -> [Outcome] {
        var outcomes = [Outcome](repeating: .notAnswering, count: entries.count)
        var children: [(index: Int, pid: pid_t, reading: Int32)] = []
        for (index, entry) in entries.enumerated() {
            guard !RealFilesystems.isKnownLocal(entry.fileSystemType), let child = spawn(entry) else { continue }
            children.append((index, child.pid, child.reading))
        }
        for (index, entry) in entries.enumerated() where !children.contains(where: { $0.index == index }) {
            outcomes[index] = measureHere(entry)
        }
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(timeoutMilliseconds, 0)) * 1_000_000
        for child in children {
            let now = MonotonicClock.nanoseconds()
            let left = now < deadline ? Int32((deadline - now) / 1_000_000) : 0
            switch IsolatedChild.collect(child: child.pid, output: FileDescriptor(owning: child.reading), timeoutMilliseconds: left) {
            case .timedOut: outcomes[child.index] = .notAnswering
            case .finished(let bytes, _): outcomes[child.index] = decode(bytes) ?? .failed("the measuring process failed")
            }
        }
        return outcomes
    }

    static func measureHere(_ entry: MountEntry) -> Outcome {
        do {
            return .measured(try Statvfs.of(entry.mountPoint, readOnly: entry.readOnly))
        } catch {
            return .failed(error.message)
        }
    }

    /// A child that writes what `measureHere` found to a pipe: its pid and the reading end.
    private static func spawn(_ entry: MountEntry) -> (pid: pid_t, reading: Int32)? {
        guard let pipe = try? FileDescriptor.pipe() else { return nil }
        // The end taken out before its number is read: FileDescriptor.Pipe says why.
        let writing = pipe.writing
        let child = fork()
        if child == 0 {
            let output = clinux_isolate_descriptors(writing.rawValue)
            let encoded = Array(encode(measureHere(entry)).utf8)
            _ = encoded.withUnsafeBytes { bytes in try? FileDescriptor.writeAll(bytes, to: output) }
            _exit(0)
        }
        writing.close()
        guard child > 0 else { return nil }
        return (child, pipe.reading.release())
    }

    /// "ok BLOCKSIZE BLOCKS FREE AVAILABLE FILES FREEFILES RO" or "error MESSAGE".
    static func encode(_ outcome: Outcome) -> String {
        switch outcome {
        case .measured(let stats):
            return "ok \(stats.blockSize) \(stats.totalBlocks) \(stats.freeBlocks) \(stats.availableBlocks) "
                + "\(stats.totalInodes) \(stats.freeInodes) \(stats.readOnly ? 1 : 0)"
        case .failed(let message): return "error " + message
        case .notAnswering: return "error no answer"
        }
    }

    static func decode(_ bytes: [UInt8]) -> Outcome? {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("error ") { return .failed(String(text.dropFirst(6))) }
        let fields = text.split(separator: " ")
        guard fields.count == 8, fields[0] == "ok" else { return nil }
        let numbers = fields[1...].compactMap { UInt64($0) }
        guard numbers.count == 7 else { return nil }
        return .measured(FilesystemStats(blockSize: numbers[0], totalBlocks: numbers[1], freeBlocks: numbers[2], availableBlocks: numbers[3],
                                         totalInodes: numbers[4], freeInodes: numbers[5], readOnly: numbers[6] == 1))
    }
}
