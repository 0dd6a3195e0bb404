/// How much to trust a snapshot's numbers.
public enum SnapshotState: String, Equatable, Hashable, Sendable, CaseIterable {
    /// Sampled by the publisher that serves it, and still current.
    case fresh
    /// The last known numbers, not confirmed since: loaded from disk after a restart, or
    /// kept while the filesystem does not answer.
    case stale
    /// The last sample failed; `error` says why and there are no numbers.
    case failed
}

/// Who took the sample a client shows.
public enum SnapshotSource: String, Equatable, Hashable, Sendable, CaseIterable {
    case daemon
    case direct
}
