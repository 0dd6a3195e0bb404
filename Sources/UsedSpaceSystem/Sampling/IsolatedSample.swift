import CLinux
import UsedSpaceCore

/// One-shot sampling that a filesystem which hangs cannot hang: what `status` uses when no
/// daemon answers.
///
/// A path under a network or FUSE mount (MountTable.mayHang: judged from the mount table
/// and the path's text, before touching the path) is sampled in a child process that can
/// be left behind after the timeout. Local filesystems are sampled here: forking costs more
/// than sampling (docs/PERFORMANCE.md).
///
/// The child runs Swift code after fork(2): the client's own malloc holds its lock across a
/// fork (Allocator.c), but other locks another thread may hold then (the normal build's Swift
/// runtime's) do not, so only one thread of a process calls this.
public enum IsolatedSample {
    public static func snapshot(_ path: String, timeoutMilliseconds: Int32) -> Snapshot {
        let mounts = try? MountTable.read()
        func sampleHere() -> Snapshot {
            var btrfs = BtrfsAllocationReader()
            var quota = QuotaTracker()
            let sample = btrfs.annotate(mounts.map { mounts in PathSampler.sample(path, mounts: { () throws(FileReadError) in mounts }) }
                ?? PathSampler.sample(path), device: nil)
            return firstSnapshot(quota.annotate(sample, btrfs: btrfs.directory))
        }
        guard let mounts, MountTable.mayHang(path, in: mounts), let pipe = try? FileDescriptor.pipe() else { return sampleHere() }
        // The end taken out before its number is read: FileDescriptor.Pipe says why.
        let writing = pipe.writing
        let child = fork()
        if child == 0 {
            let output = clinux_isolate_descriptors(writing.rawValue)
            let encoded = Array((SnapshotCodec.encode(sampleHere()) + "\n").utf8)
            _ = encoded.withUnsafeBytes { bytes in try? FileDescriptor.writeAll(bytes, to: output) }
            _exit(0)
        }
        writing.close()
        guard child > 0 else { return sampleHere() }
        switch IsolatedChild.collect(child: child, output: pipe.reading, timeoutMilliseconds: timeoutMilliseconds) {
        case .timedOut:
            return firstSnapshot(.failed(.timedOut(path: path, seconds: Double(timeoutMilliseconds) / 1000), path: path,
                                         mountPoint: nil, fileSystemType: nil, at: WallClock.now()))
        case .finished(let bytes, _):
            return (try? SnapshotCodec.decode(String(decoding: bytes, as: UTF8.self), source: .direct)) ?? sampleHere()
        }
    }

    /// A sample as the first snapshot of a publisher of its own.
    static func firstSnapshot(_ sample: Sample) -> Snapshot {
        var publisher = Publisher(policy: PublishPolicy(), source: .direct)
        publisher.accept(sample)
        return publisher.current!
    }
}
