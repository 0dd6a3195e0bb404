import UsedSpaceCore
import UsedSpaceSystem

/// Asks the helper who is filling a filesystem (for FillWriterNaming), off the loop: the
/// helper's socket is called on a worker thread of its own, each question within a deadline,
/// and the loop hears the answer through the worker's event counter. Questions asked while
/// one is out wait for it and go together (one after the other). Nothing is asked unless a
/// fast fill is seen.
final class FillWriterQuestions: WriterAsking {
    /// The helper takes about a second (two looks at the user's processes) after systemd
    /// started it: a notification is held this long at most.
    static let deadlineNanoseconds: UInt64 = 5_000_000_000

    struct Question: Sendable {
        var key: String
        var mountPoint: String
    }

    struct Answer: Sendable {
        var key: String
        var reply: WriterHelperCall.Reply
    }

    private let logger: Logger
    private let worker: BackgroundWorker<[Question], [Answer]>
    private var source: IOEventSource?
    /// Not yet handed to the worker, by key (a newer question for a key replaces the older).
    private var waiting: [String: String] = [:]
    /// Whether the helper's absence or refusal was logged (once, until it answers again).
    private var saidWhy = false
    /// Called on the loop with each question's key and the writers found (nil: not known).
    var answered: (String, FillWriters?) -> Void = { _, _ in }

    init(socket: String, loop: EventLoop, logger: Logger) throws(SystemError) {
        self.logger = logger
        worker = try BackgroundWorker { questions in
            questions.map { question in
                Answer(key: question.key, reply: WriterHelperCall.ask(socket: socket, mountPoint: question.mountPoint,
                                                                      deadline: MonotonicClock.nanoseconds() + Self.deadlineNanoseconds))
            }
        }
        source = try IOEventSource(loop: loop, descriptor: worker.wake.descriptor, events: IOEvents.readable) { [unowned(unsafe) self] _ in
            self.collect()
        }
    }

    deinit {
        // The source first: it must not outlive the descriptor it watches.
        source = nil
    }

    func ask(key: String, mountPoint: String) {
        waiting[key] = mountPoint
        submitIfIdle()
    }

    private func submitIfIdle() {
        guard !waiting.isEmpty, !worker.isBusy else { return }
        let questions = waiting.map { Question(key: $0.key, mountPoint: $0.value) }
        waiting = [:]
        do {
            try worker.submit(questions)
        } catch {
            explain("cannot ask who is filling the disk", reason: error.description, level: .warning)
            for question in questions { answered(question.key, nil) }
        }
    }

    private func collect() {
        for answers in worker.takeOutputs() {
            for answer in answers { take(answer) }
        }
        submitIfIdle()
    }

    private func take(_ answer: Answer) {
        switch answer.reply {
        case .outcome(.writers(let writers, let grew)):
            if saidWhy {
                saidWhy = false
                logger.notice("the helper names who is filling a disk again (usedspace-writers.socket)")
            }
            answered(answer.key, FillWriters(writers, sawGrowth: grew, home: ProcessEnvironment.homeDirectory))
        case .outcome(.failed(let reason)):
            logger.info("the helper could not tell who is filling the disk: \(reason)", metadata: ["reason": "\(reason)"])
            answered(answer.key, nil)
        case .absent(let reason):
            explain("fast-fill notifications do not name the writer: the helper usedspace-writers.socket is not there", reason: reason, level: .info)
            answered(answer.key, nil)
        case .refused(let reason):
            explain("fast-fill notifications do not name the writer: the helper's answer was refused", reason: reason, level: .warning)
            answered(answer.key, nil)
        }
    }

    private func explain(_ what: String, reason: String, level: Logger.Level) {
        guard !saidWhy else { return }
        saidWhy = true
        logger.log(level: level, "\(what); not logging this again until it answers", metadata: ["reason": "\(reason)"])
    }
}
