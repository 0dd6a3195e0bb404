import CLinux
import UsedSpaceCore

/// Samples one path in a child process of its own (clinux_probe_start): the path's realpath,
/// stat and statvfs, the calls a dead network or FUSE filesystem can hang in beyond the
/// reach of any signal. A thread stuck in one keeps its whole process from exiting (a
/// daemon that cannot stop, a bar's `watch` that outlives the bar); a stuck child holds
/// nobody: its owner waits on a pipe, which any exit ends. Used for every path not on a
/// filesystem known to answer from memory (RealFilesystems.isKnownLocal).
final class FilesystemProbe: @unchecked Sendable {
    /// One answer: the path resolved, its identity, and the filesystem's figures.
    struct Answer {
        var canonicalPath: String
        var deviceMajor: UInt32
        var deviceMinor: UInt32
        var inode: UInt64
        var reading: Statvfs.Reading
    }

    private let path: String
    private var child: pid_t = -1
    private var requests: Int32 = -1
    private var answers: Int32 = -1

    init(path: String) {
        self.path = path
    }

    deinit { stop() }

    /// Asks the child (started, or started again, as needed) and waits for its answer; the
    /// caller's thread waits on a pipe, never in the filesystem. `readOnly`: the
    /// filesystem's own state (Statvfs).
    func sample(readOnly: Bool) throws(SystemError) -> Answer {
        if child < 0 { try start() }
        var answer = clinux_probe_answer()
        do throws(SystemError) {
            var request: UInt8 = 1
            _ = try SystemCall.retrying("write") { write(requests, &request, 1) }
            try withUnsafeMutableBytes(of: &answer) { (buffer) throws(SystemError) in
                var offset = 0
                while offset < buffer.count {
                    let count = try SystemCall.retrying("read") { read(answers, buffer.baseAddress! + offset, buffer.count - offset) }
                    guard count > 0 else { throw SystemError(call: "read", errno: EPIPE) }
                    offset += count
                }
            }
        } catch {
            // The child is gone (killed): the next sample starts another.
            stop()
            throw error
        }
        let length = Int(min(answer.path_length, 4096))
        let canonical = withUnsafePointer(to: &answer) { answer in
            String(decoding: UnsafeRawBufferPointer(start: clinux_probe_answer_path(answer), count: length), as: UTF8.self)
        }
        switch answer.failed_call {
        case 0: break
        case 1: throw SystemError(call: "realpath", errno: answer.error)
        case 2: throw SystemError(call: "stat", errno: answer.error)
        default: throw SystemError(call: "statvfs", errno: answer.error)
        }
        let fragmentSize = answer.fragment_size
        let statistics = FilesystemStats(
            blockSize: fragmentSize != 0 ? fragmentSize : answer.block_size, totalBlocks: answer.blocks,
            freeBlocks: answer.free_blocks, availableBlocks: answer.available_blocks,
            totalInodes: answer.files, freeInodes: answer.free_files, readOnly: readOnly)
        let device = FileStatus.deviceNumbers(answer.device)
        return Answer(canonicalPath: canonical, deviceMajor: device.major, deviceMinor: device.minor, inode: answer.inode,
                      reading: Statvfs.Reading(statistics: statistics, identifier: answer.fsid,
                                                            viewReadOnly: answer.flags & UInt64(ST_RDONLY) != 0))
    }

    private func start() throws(SystemError) {
        var requests: Int32 = -1, answers: Int32 = -1
        let pid = path.withCString { clinux_probe_start($0, &requests, &answers) }
        guard pid > 0 else { throw .current("fork") }
        child = pid
        self.requests = requests
        self.answers = answers
    }

    /// Closes the pipes: a child waiting for a request exits; one stuck in the filesystem
    /// exits when it answers (SIGKILL makes that the moment), reaped then (IsolatedChild).
    private func stop() {
        guard child > 0 else { return }
        close(requests)
        close(answers)
        kill(child, SIGKILL)
        IsolatedChild.abandon(child)
        child = -1
    }
}
