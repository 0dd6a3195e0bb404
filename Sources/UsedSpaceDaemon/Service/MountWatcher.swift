import UsedSpaceCore
import UsedSpaceSystem

/// Follows the mount table for `path = auto`, without polling: the kernel raises EPOLLPRI
/// on the open mountinfo file when a mount or unmount changes the daemon's mount
/// namespace. Only EPOLLPRI is asked for (mountinfo is always readable: EPOLLIN would wake
/// the loop for ever), and epoll's next poll of the file clears the event, so the loop
/// wakes once per change.
///
/// A container start or a boot mounts dozens of filesystems in a burst: the first change
/// arms a timer, and the table is read once when it fires, whatever else changed meanwhile,
/// so a storm costs a read every `settleMicroseconds`, not one per mount.
final class MountWatcher {
    static let settleMicroseconds: UInt64 = 200_000

    private let file: MountInfoFile
    private var source: IOEventSource?
    private var settle: TimerEventSource?
    private let logger: Logger
    private let changed: ([MountEntry]) -> Void
    /// Reads of the table since the start (the first one included): in the log, so that a
    /// test or a user can see that a storm was read once, not per mount.
    private(set) var reads = 0

    /// `changed` is called on the loop with the table, after a change has settled.
    init(loop: EventLoop, logger: Logger, changed: @escaping ([MountEntry]) -> Void) throws(SystemError) {
        file = try MountInfoFile()
        self.logger = logger
        self.changed = changed
        settle = try TimerEventSource(loop: loop, accuracyMicroseconds: 20_000) { [unowned(unsafe) self] in
            if let entries = self.read() { self.changed(entries) }
        }
        source = try IOEventSource(loop: loop, descriptor: file.descriptor, events: IOEvents.priority) { [unowned(unsafe) self] _ in
            guard self.settle?.isScheduled == false else { return }
            self.settle?.schedule(afterMicroseconds: Self.settleMicroseconds)
        }
    }

    deinit {
        // The sources first: they must not outlive the descriptor they watch.
        source = nil
        settle = nil
    }

    /// Reads the table once more, as after a change (the manager has set a watch aside).
    func readSoon() {
        guard settle?.isScheduled == false else { return }
        settle?.schedule(afterMicroseconds: Self.settleMicroseconds)
    }

    /// The table now; nil (and said in the log) when it cannot be read, which leaves the
    /// watches as they are until the next change.
    func read() -> [MountEntry]? {
        reads += 1
        do {
            return try file.read()
        } catch {
            logger.error("cannot read the mount table: \(error); the automatic watches stay as they are",
                         metadata: ["file": "\(MountTable.path)", "reason": "\(error)"])
            return nil
        }
    }
}
