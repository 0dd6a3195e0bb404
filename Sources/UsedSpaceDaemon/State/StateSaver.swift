import UsedSpaceCore
import UsedSpaceSystem

/// Keeps the state file: the last snapshot of every watch, written at most once a minute
/// and at stop. A disk in use publishes every sample; writing the file each time woke the
/// disk every second (two fsyncs) for figures that a restart samples again within one
/// interval. A crash costs at most the last minute of them, never the file (AtomicFile).
///
/// What a crash must not cost is seq going back: the file may be a minute behind what
/// clients saw, so each write reserves the next `reservation` seqs (StateFile.seq_reserved)
/// and is made early, before the publishes reach them; at stop the reservation is exact.
final class StateSaver {
    static let minimumIntervalMicroseconds: UInt64 = 60_000_000
    /// More than a minute of publishes at the shortest interval (100 ms): 600.
    static let reservation: UInt64 = 1000

    let file: BackgroundFileWriter
    private let loop: EventLoop
    private var timer: TimerEventSource?
    /// The watches' entries now (their snapshots).
    private let entries: () -> [StateFile.Entry]
    /// When the file was last written (the loop's CLOCK_MONOTONIC µs); nil: not yet.
    private var lastWrite: UInt64?
    private var reservedSeq: UInt64
    /// The highest seq a client may have seen (of watches that a reload since removed, too).
    private var highestSeq: UInt64 = 0
    private var outOfDate = false

    /// `reservedSeq`: what the file read at start reserved (the seqs go on above it).
    init(file: BackgroundFileWriter, loop: EventLoop, reservedSeq: UInt64, entries: @escaping () -> [StateFile.Entry]) throws(SystemError) {
        self.file = file
        self.loop = loop
        self.reservedSeq = reservedSeq
        self.entries = entries
        timer = try TimerEventSource(loop: loop, accuracyMicroseconds: 1_000_000) { [unowned(unsafe) self] in self.write(final: false) }
    }

    deinit { timer = nil }

    /// A snapshot changed (published with `seq`): written within a minute, or at once when
    /// its seq nears the reservation (or nothing was written yet).
    func changed(seq: UInt64) {
        outOfDate = true
        highestSeq = max(highestSeq, seq)
        let now = loop.now
        // At once: the first time, near the reservation, and after a write that failed (a
        // full disk: the next publish after space comes back saves again).
        guard let lastWrite, highestSeq + Self.reservation / 2 < reservedSeq, !file.isFailing else {
            write(final: false)
            return
        }
        guard timer?.isScheduled == false else { return }
        let due = lastWrite + Self.minimumIntervalMicroseconds
        timer?.schedule(afterMicroseconds: due > now ? due - now : 0)
    }

    /// At stop: the file as it is now, its reservation exact.
    func flush() {
        highestSeq = max(highestSeq, entries().map { $0.snapshot.seq }.max() ?? 0)
        guard outOfDate || reservedSeq != highestSeq else { return }
        write(final: true)
    }

    private func write(final: Bool) {
        let current = entries()
        highestSeq = max(highestSeq, current.map { $0.snapshot.seq }.max() ?? 0)
        reservedSeq = final ? highestSeq : max(reservedSeq, highestSeq + Self.reservation)
        file.write(StateFile.encode(current, reservedSeq: reservedSeq))
        lastWrite = loop.now
        outOfDate = false
        timer?.cancel()
    }
}
