/// A bounded, time-ordered record of how much space was available on one filesystem: what
/// the time-to-full estimate reads, and what the daemon persists across restarts.
///
/// The daemon appends a point at every publish (the used rate moved by at least 0.01 %) and at
/// least one every 15 minutes while nothing changes, so between two points the value moved by
/// less than the publish threshold: the points, read as a step function, describe the whole
/// period. Pruning keeps that true over the long windows with fewer points:
///
/// - nothing older than `retentionSeconds` before the newest point is kept;
/// - over `capacity`, the history is thinned rather than its oldest part dropped, so that a
///   week-long window keeps its coverage: each point falls in a bucket of time aligned to a
///   multiple of a power-of-two width w, the smallest with w ≥ age / resolution (its age
///   counted from the newest point, `resolution` = capacity / 16, 128 by default), and only
///   the first point of each bucket is kept. The last two hours keep a point a minute or
///   better, a day back one per 11–22 minutes, a week back one per 1.3–2.6 hours — the spacing
///   grows with age as the grid of the windows that read it does (see `TimeToFullEstimator`),
///   and since the buckets are aligned, a later pass only merges what an earlier one kept. A
///   pass leaves at most about 64 points per doubling of age (under 1 000 over two weeks); if
///   it leaves more than 7/8 of `capacity`, the resolution is halved and the pass repeated, so
///   thinning runs at most once every capacity/8 appends. The newest point is always kept
///   (and with a capacity too small for even one point per doubling of age, about 40 over
///   two weeks, the oldest points go).
///
/// Points must come in strictly increasing time: a point at the time of the newest or earlier
/// is ignored (a duplicate, or the clock stepped back a little) — unless it is more than
/// `clockResetSeconds` (one day) earlier, which means the clock was wrong before or is wrong
/// now: the old timeline cannot be compared with the new one, so the history starts over.
public struct UsageHistory: Equatable, Sendable {
    public struct Point: Equatable, Hashable, Sendable {
        public var secondsSinceEpoch: Int64
        /// What an unprivileged user can still write (df's Avail); the filesystem is full at 0.
        public var availableBytes: UInt64

        public init(secondsSinceEpoch: Int64, availableBytes: UInt64) {
            self.secondsSinceEpoch = secondsSinceEpoch
            self.availableBytes = availableBytes
        }
    }

    public static let defaultCapacity = 2048
    public static let defaultRetentionSeconds: Int64 = 14 * 86_400
    public static let clockResetSeconds: Int64 = 86_400

    /// Oldest first, strictly increasing in time.
    public private(set) var points: [Point] = []
    public let capacity: Int
    public let retentionSeconds: Int64

    /// `capacity` is at least 16, `retentionSeconds` at least one hour.
    public init(capacity: Int = UsageHistory.defaultCapacity, retentionSeconds: Int64 = UsageHistory.defaultRetentionSeconds) {
        self.capacity = max(16, capacity)
        self.retentionSeconds = max(3600, retentionSeconds)
    }

    public var count: Int { points.count }
    public var isEmpty: Bool { points.isEmpty }
    public var last: Point? { points.last }

    /// Appends a point, then prunes. Returns false when the point was ignored (not after the
    /// newest point); see the type's documentation for the clock-reset rule.
    @discardableResult
    public mutating func append(_ point: Point) -> Bool {
        if let newest = points.last, point.secondsSinceEpoch <= newest.secondsSinceEpoch {
            let (back, overflow) = newest.secondsSinceEpoch.subtractingReportingOverflow(point.secondsSinceEpoch)
            guard overflow || back > Self.clockResetSeconds else { return false }
            points.removeAll(keepingCapacity: true)
        }
        points.append(point)
        prune()
        return true
    }

    @discardableResult
    public mutating func append(secondsSinceEpoch: Int64, availableBytes: UInt64) -> Bool {
        append(Point(secondsSinceEpoch: secondsSinceEpoch, availableBytes: availableBytes))
    }

    private mutating func prune() {
        guard let newest = points.last?.secondsSinceEpoch else { return }
        let (oldest, overflow) = newest.subtractingReportingOverflow(retentionSeconds)
        if !overflow, let first = points.first, first.secondsSinceEpoch < oldest {
            let keepFrom = Self.firstIndex(in: points, notBefore: oldest)
            points.removeFirst(keepFrom)
        }
        guard points.count > capacity else { return }
        var resolution = Int64(max(1, capacity / 16))
        while points.count > capacity - capacity / 8 && resolution > 0 {
            var kept = 0
            var previousBucket: (width: Int64, index: Int64)?
            for index in 0..<points.count {
                let time = points[index].secondsSinceEpoch
                let (age, overflow) = newest.subtractingReportingOverflow(time)
                var width: Int64 = 1
                while width < Int64.max / 2, overflow || width.multipliedReportingOverflow(by: resolution).partialValue < age {
                    width <<= 1
                }
                let bucket = (width: width, index: Self.floorDivide(time, width))
                if index == points.count - 1 || previousBucket.map({ $0 != bucket }) ?? true {
                    points[kept] = points[index]
                    kept += 1
                }
                previousBucket = bucket
            }
            points.removeSubrange(kept...)
            resolution /= 2
        }
        // Only with a tiny capacity: what one bucket per doubling of age cannot fit.
        if points.count > capacity { points.removeFirst(points.count - capacity) }
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    /// The index of the first point at or after `time` (binary search).
    static func firstIndex(in points: [Point], notBefore time: Int64) -> Int {
        var low = 0, high = points.count
        while low < high {
            let middle = low + (high - low) / 2
            if points[middle].secondsSinceEpoch < time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: Persistence

    public static let formatVersion = 1
    /// Longest text `init(decoding:)` reads: 2048 points take about 60 kB.
    public static let maximumEncodedBytes = 1 << 20
    /// Most points `init(decoding:)` reads, whatever the capacity.
    public static let maximumDecodedPoints = 65_536

    public enum DecodingError: Error, Equatable, Sendable, CustomStringConvertible {
        case tooLarge(bytes: Int)
        case invalidJSON(JSONParser.Failure)
        case notAnObject
        case unsupportedVersion(String)
        case missing(String)
        case tooManyPoints(Int)
        /// The point at this index is not `[seconds, bytes]` with integers in range.
        case invalidPoint(index: Int)
        /// The point at this index is not after the one before it.
        case outOfOrder(index: Int)

        public var description: String {
            switch self {
            case .tooLarge(let bytes): "the history is \(bytes) bytes long, more than \(UsageHistory.maximumEncodedBytes)"
            case .invalidJSON(let failure): failure.description
            case .notAnObject: "not a JSON object"
            case .unsupportedVersion(let version): "unsupported history format version \(version) (this program writes \(UsageHistory.formatVersion))"
            case .missing(let key): "the key '\(key)' is missing"
            case .tooManyPoints(let count): "the history has \(count) points, more than \(UsageHistory.maximumDecodedPoints)"
            case .invalidPoint(let index): "point \(index) is not [seconds, bytes] with non-negative 64-bit integers"
            case .outOfOrder(let index): "point \(index) is not later than the point before it"
            }
        }
    }

    /// One JSON line: `{"version":1,"points":[[seconds,availableBytes],…]}`, oldest first.
    public func encode() -> String {
        var array = "["
        array.reserveCapacity(points.count * 28 + 2)
        for (index, point) in points.enumerated() {
            if index > 0 { array += "," }
            array += "[\(point.secondsSinceEpoch),\(point.availableBytes)]"
        }
        array += "]"
        var json = JSONObjectWriter()
        json.add("version", Self.formatVersion)
        json.addRaw("points", array)
        return json.finish()
    }

    /// Reads what `encode()` wrote. Anything else is an error, never a crash: the text is
    /// bounded (`maximumEncodedBytes`, `maximumDecodedPoints`), every point must be a pair of
    /// integers in range, strictly increasing in time. Unknown keys are ignored. The points
    /// are then appended as if live, so a history saved with a larger capacity or retention
    /// is pruned to this one's.
    public init(
        decoding text: String,
        capacity: Int = UsageHistory.defaultCapacity,
        retentionSeconds: Int64 = UsageHistory.defaultRetentionSeconds
    ) throws(DecodingError) {
        self.init(capacity: capacity, retentionSeconds: retentionSeconds)
        let length = text.utf8.count
        guard length <= Self.maximumEncodedBytes else { throw .tooLarge(bytes: length) }
        let value: JSONValue
        do { value = try JSONParser.parse(text, maximumDepth: 4) } catch { throw .invalidJSON(error) }
        guard case .object = value else { throw .notAnObject }
        guard let version = value["version"] else { throw .missing("version") }
        guard version.intValue == Self.formatVersion else {
            throw .unsupportedVersion(version.intValue.map(String.init) ?? "(not an integer)")
        }
        guard let list = value["points"] else { throw .missing("points") }
        guard case .array(let elements) = list else { throw .invalidPoint(index: 0) }
        guard elements.count <= Self.maximumDecodedPoints else { throw .tooManyPoints(elements.count) }
        var previous: Int64?
        for (index, element) in elements.enumerated() {
            guard case .array(let pair) = element, pair.count == 2,
                  case .number(let timeText) = pair[0], let time = Int64(timeText),
                  let available = pair[1].uint64Value
            else { throw .invalidPoint(index: index) }
            if let previous, time <= previous { throw .outOfOrder(index: index) }
            previous = time
            append(Point(secondsSinceEpoch: time, availableBytes: available))
        }
    }
}
