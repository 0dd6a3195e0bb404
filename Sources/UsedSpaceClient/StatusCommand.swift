import UsedSpaceCore
import UsedSpaceSystem

/// Prints one snapshot and exits: 0 when it has numbers, 1 when it failed.
enum StatusCommand {
    static func run(_ options: StatusOptions) -> Int32 {
        guard let path = options.path ?? ProcessEnvironment.homeDirectory else {
            StandardStreams.error("usedspace: HOME is not set and the password database has no home directory; use --path PATH")
            return ExitStatus.failure
        }
        var publisher = Publisher(policy: PublishPolicy(), source: .direct)
        publisher.accept(DirectSampler.sample(path))
        guard let snapshot = publisher.current else { return ExitStatus.failure }
        return show(snapshot, options: options)
    }

    static func show(_ snapshot: Snapshot, options: StatusOptions) -> Int32 {
        switch options.format {
        case .json:
            StandardStreams.write(JSONRenderer.render(snapshot) + "\n")
        default:
            if snapshot.stats != nil { StandardStreams.write(TextRenderer.render(snapshot, details: options.details)) }
        }
        if snapshot.state == .failed {
            StandardStreams.error("usedspace: \(snapshot.error ?? "the sample failed")")
            return ExitStatus.failure
        }
        return ExitStatus.success
    }
}
