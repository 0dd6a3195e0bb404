/// The answer for one sample, as the widget's `NCUpdateResult` was: whether subscribers get
/// a new snapshot.
public enum PublishDecision: Equatable, Sendable {
    /// Publish: the used rate moved by at least the threshold, or the state or mount changed.
    case newData
    /// Nothing to publish and nothing to write.
    case noData
    /// Publish a failed (or, for a timeout with known numbers, stale) snapshot: the sample
    /// failed and the previous snapshot did not already say so.
    case failed
}
