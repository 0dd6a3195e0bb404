import UsedSpaceCore
import UsedSpaceSystem

/// Who is filling each watched filesystem, as the daemon says it: in its snapshots (so on
/// D-Bus, `FastFillWriting`, and to every client) and in its fast-fill notification. The
/// helper (FillWriterQuestions) is asked at a fill's first publish, then again at a publish
/// at least 10 s after its last answer while the fill goes on: a writer may change, and one
/// that writes now and then may have been between two writes. A filesystem has one question
/// out at a time, which the notification shares. Nothing is asked while no fast fill is seen.
final class FillWriterNaming: WriterAsking {
    static let refreshNanoseconds: UInt64 = 10_000_000_000

    private struct Fill {
        var asking = false
        var answeredAt: UInt64?
        /// What is said now (FillWriters.followed: a look that saw nobody write keeps it).
        var said: FillWriters?
        /// Notifications held for the answer of the question out.
        var notifications: [String] = []
    }

    private let questions: WriterAsking
    /// By mount point: the filesystems seen filling, until their fill ends.
    private var fills: [String: Fill] = [:]
    /// Called when what is said of the writers on a mount point changes.
    var changed: (_ mountPoint: String, FillWriters) -> Void = { _, _ in }
    /// Called with the answer for a notification's key (nil: not known).
    var notificationAnswered: (_ key: String, FillWriters?) -> Void = { _, _ in }

    init(questions: WriterAsking) {
        self.questions = questions
    }

    /// A watch published `snapshot`: a fill asks when it is due; a fill that ended is forgotten.
    func published(_ snapshot: Snapshot, now: UInt64 = MonotonicClock.nanoseconds()) {
        guard let mountPoint = snapshot.mountPoint, snapshot.state != .stale else { return }
        guard snapshot.fastFill != nil, snapshot.state == .fresh else {
            fills[mountPoint] = nil
            return
        }
        var fill = fills[mountPoint] ?? Fill()
        defer { fills[mountPoint] = fill }
        guard !fill.asking, fill.answeredAt.map({ now < $0 || now - $0 >= Self.refreshNanoseconds }) ?? true else { return }
        fill.asking = true
        questions.ask(key: mountPoint, mountPoint: mountPoint)
    }

    /// A notification's question (WriterAsking): the answer of the question out, or the last
    /// one when it is recent; else a new question.
    func ask(key: String, mountPoint: String) {
        var fill = fills[mountPoint] ?? Fill()
        let now = MonotonicClock.nanoseconds()
        if !fill.asking, let said = fill.said, let at = fill.answeredAt, now >= at, now - at < Self.refreshNanoseconds {
            notificationAnswered(key, said)
            return
        }
        fill.notifications.append(key)
        if !fill.asking {
            fill.asking = true
            questions.ask(key: mountPoint, mountPoint: mountPoint)
        }
        fills[mountPoint] = fill
    }

    /// The helper's answer about `mountPoint` (nil: it could not tell).
    func answered(mountPoint: String, _ found: FillWriters?, now: UInt64 = MonotonicClock.nanoseconds()) {
        guard var fill = fills[mountPoint] else { return }
        fill.asking = false
        fill.answeredAt = now
        let waiting = fill.notifications
        fill.notifications = []
        var said: FillWriters?
        if let found {
            said = fill.said.map { $0.followed(by: found) } ?? found
        }
        let isNews = said != nil && said != fill.said
        if let said { fill.said = said }
        fills[mountPoint] = fill
        for key in waiting { notificationAnswered(key, said) }
        if isNews, let said { changed(mountPoint, said) }
    }
}
