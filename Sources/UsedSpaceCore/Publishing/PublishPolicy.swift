/// Decides, for the last published snapshot and a new sample, whether to publish.
///
/// Unlike the original widget, which compared `newRate - usedRate < 0.0001` and so never
/// reported space being freed, the distance is absolute: decreases publish too.
public struct PublishPolicy: Equatable, Sendable {
    /// The least change of the used rate that publishes, as an exact fraction (default 1/10000).
    public var threshold: Fraction

    public static let defaultThreshold = Fraction(numerator: 1, denominator: 10_000)

    public init(threshold: Fraction = PublishPolicy.defaultThreshold) {
        self.threshold = threshold
    }

    public func decide(previous: Snapshot?, sample: Sample) -> PublishDecision {
        switch sample {
        case .failed(let error, _, _, _, _):
            if let previous, previous.state != .fresh, previous.error == error.description {
                return .noData
            }
            return .failed
        case .measured(let measurement):
            guard let previous, previous.state == .fresh,
                  previous.path == measurement.path,
                  previous.mountPoint == measurement.mountPoint,
                  previous.fileSystemType == measurement.fileSystemType,
                  let previousStats = previous.stats,
                  previousStats.totalBytes == measurement.stats.totalBytes,
                  let previousRate = previousStats.usedFraction,
                  let newRate = measurement.stats.usedFraction
            else { return .newData }
            return newRate.differs(from: previousRate, byAtLeast: threshold) ? .newData : .noData
        }
    }
}
