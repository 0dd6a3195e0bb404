import CLinux
import Glibc
import UsedSpaceCore

/// One-shot sampling that a filesystem which hangs cannot hang: what `status` uses when no
/// daemon answers.
///
/// A statvfs (or even a stat) on a dead network mount can block in the kernel beyond the
/// reach of any signal, and a process cannot exit while one of its threads is stuck that
/// way. So a path under a network or FUSE mount (judged from /proc/self/mountinfo and the
/// path's text, before touching the path) is sampled in a child process that can be left
/// behind after `timeout`. Local filesystems are sampled here: forking costs more than
/// sampling (docs/PERFORMANCE.md). A symlink from a local path into a network mount is not
/// seen through.
///
/// Only for single-threaded processes (fork).
public enum IsolatedSampler {
    public static func snapshot(_ path: String, timeoutMilliseconds: Int32) -> Snapshot {
        let mounts = (try? FileContents.read(DirectSampler.mountTablePath)).map { MountInfoParser.parse(bytes: $0) }
        func sampleHere(_ path: String) -> Snapshot { Self.sampleHere(path, mounts: mounts) }
        guard let mounts, mayHang(path, mounts: mounts) else { return sampleHere(path) }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return sampleHere(path) }
        let child = fork()
        if child == 0 {
            // A child left behind must hold none of our descriptors: whoever reads our
            // stdout (or waits on any pipe of ours) would wait for it.
            let writer = fcntl(ends[1], F_DUPFD, 10)
            let null = open("/dev/null", O_RDWR)
            for standard: Int32 in 0...2 { dup2(null, standard) }
            dup2(writer, 3)
            ends[1] = 3
            _ = clinux_close_from(4)
            let encoded = Array((SnapshotCodec.encode(sampleHere(path)) + "\n").utf8)
            var offset = 0
            while offset < encoded.count {
                let written = encoded.withUnsafeBytes { write(ends[1], $0.baseAddress! + offset, $0.count - offset) }
                if written <= 0 && errno != EINTR { break }
                if written > 0 { offset += written }
            }
            _exit(0)
        }
        close(ends[1])
        defer { close(ends[0]) }
        guard child > 0 else { return sampleHere(path) }
        var received: [UInt8] = []
        let deadline = WallClock.monotonicNanoseconds() + UInt64(timeoutMilliseconds) * 1_000_000
        while true {
            let now = WallClock.monotonicNanoseconds()
            guard now < deadline, Descriptor.wait(ends[0], milliseconds: Int32((deadline - now) / 1_000_000) + 1) else {
                // Left to the kernel: it exits whenever the filesystem answers.
                kill(child, SIGKILL)
                return timedOut(path, milliseconds: timeoutMilliseconds)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            if count > 0 { received += chunk[0..<count]; continue }
            if count < 0 && errno == EINTR { continue }
            break
        }
        var status: Int32 = 0
        _ = waitpid(child, &status, 0)
        guard let snapshot = try? SnapshotCodec.decode(String(decoding: received, as: UTF8.self), source: .direct) else {
            return sampleHere(path)
        }
        return snapshot
    }

    /// Whether the mount that `path` lies under, going by its text, is a network or FUSE one.
    public static func mayHangLexically(_ path: String) -> Bool {
        guard let table = try? FileContents.read(DirectSampler.mountTablePath) else { return false }
        return mayHang(path, mounts: MountInfoParser.parse(bytes: table))
    }

    static func mayHang(_ path: String, mounts: [MountEntry]) -> Bool {
        var directory = [CChar](repeating: 0, count: 4096)
        let current = getcwd(&directory, directory.count).map { String(cString: $0) } ?? "/"
        let lexical = LexicalPath.normalize(path, currentDirectory: current)
        let mount = MountLocator.mount(containing: lexical, in: mounts)
        return mount.map { RemoteFileSystems.mayHang($0.fileSystemType) } ?? false
    }

    static func sampleHere(_ path: String, mounts: [MountEntry]?) -> Snapshot {
        var publisher = Publisher(policy: PublishPolicy(), source: .direct)
        if let mounts {
            publisher.accept(DirectSampler.sample(path, mounts: { () throws(FileReadError) in mounts }))
        } else {
            publisher.accept(DirectSampler.sample(path))
        }
        return publisher.current!
    }

    static func timedOut(_ path: String, milliseconds: Int32) -> Snapshot {
        var publisher = Publisher(policy: PublishPolicy(), source: .direct)
        publisher.accept(.failed(.timedOut(path: path, seconds: Double(milliseconds) / 1000), path: path,
                                 mountPoint: nil, fileSystemType: nil, at: WallClock.now()))
        return publisher.current!
    }
}
