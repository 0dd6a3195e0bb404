/// Rank-based trend statistics for one evenly spaced series: the Theil–Sen slope (the median
/// of the slopes between every pair of points) and Kendall's τ-b between time and value.
/// Both ignore how far off an outlier is, only which side of the others it falls on, so a
/// spike moves them no more than any other single point does.
struct RobustTrend: Equatable, Sendable {
    /// The Theil–Sen slope: the median of the pairwise slopes (value units per second).
    var slope: Double
    /// Kendall's τ-b of (time, value): −1 when every later point is lower than every earlier
    /// one, +1 when every later point is higher, about 0 for noise. Ties in value (a flat
    /// stretch) count in the τ-b denominator, so a staircase still scores close to ±1.
    var tau: Double
    /// How many pairs the two statistics were computed from.
    var pairs: Int

    /// The most pairs looked at; beyond this the pairs are subsampled by lag (below).
    static let defaultMaximumPairs = 20_000

    /// Fits `values` at `times` (strictly increasing, the same count, at least two).
    ///
    /// With more than `maximumPairs` pairs, only the pairs (i, i + k) for every `stride`-th
    /// lag k = 1, 1 + stride, 1 + 2·stride, … are used: deterministic, and short and long
    /// lags stay represented in the same proportion as in the full set.
    static func fit(times: [Double], values: [Double], maximumPairs: Int = defaultMaximumPairs) -> RobustTrend? {
        let count = min(times.count, values.count)
        guard count >= 2 else { return nil }
        let allPairs = count * (count - 1) / 2
        let budget = max(1, maximumPairs)
        let stride = allPairs <= budget ? 1 : (allPairs - 1) / budget + 1
        var slopes: [Double] = []
        slopes.reserveCapacity(allPairs / stride + count)
        var concordant = 0, discordant = 0, tiedInValue = 0
        times.withUnsafeBufferPointer { t in
            values.withUnsafeBufferPointer { v in
                var lag = 1
                while lag < count {
                    for i in 0..<(count - lag) {
                        let j = i + lag
                        let dy = v[j] - v[i]
                        let dx = t[j] - t[i]
                        if dy > 0 { concordant += 1 } else if dy < 0 { discordant += 1 } else { tiedInValue += 1 }
                        slopes.append(dx > 0 ? dy / dx : 0)
                    }
                    lag += stride
                }
            }
        }
        let pairs = concordant + discordant + tiedInValue
        guard pairs > 0 else { return nil }
        let untied = Double(pairs - tiedInValue)
        let tau = untied > 0 ? Double(concordant - discordant) / (Double(pairs) * untied).squareRoot() : 0
        return RobustTrend(slope: median(&slopes), tau: tau, pairs: pairs)
    }

    /// The median (the mean of the two middle values for an even count); reorders `values`.
    static func median(_ values: inout [Double]) -> Double {
        precondition(!values.isEmpty)
        let middle = values.count / 2
        let upper = select(&values, middle)
        guard values.count % 2 == 0 else { return upper }
        // After selecting, everything before `middle` is ≤ it: the lower middle is their maximum.
        var lower = values[0]
        for index in 1..<middle where values[index] > lower { lower = values[index] }
        return lower / 2 + upper / 2
    }

    /// The element that would be at `k` (0-based) if `values` were sorted, with everything
    /// before it ≤ and everything after it ≥. Quickselect with a median-of-three pivot and a
    /// three-way partition (so runs of equal slopes, common on a staircase, cost nothing);
    /// after 64 rounds it sorts what is left, which bounds the worst case.
    static func select(_ values: inout [Double], _ k: Int) -> Double {
        precondition(values.indices.contains(k))
        return values.withUnsafeMutableBufferPointer { buffer -> Double in
            var low = 0, high = buffer.count - 1
            var rounds = 0
            while low < high {
                rounds += 1
                if rounds > 64 {
                    let sorted = buffer[low...high].sorted()
                    for (offset, value) in sorted.enumerated() { buffer[low + offset] = value }
                    return buffer[k]
                }
                let a = buffer[low], b = buffer[low + (high - low) / 2], c = buffer[high]
                let pivot = max(min(a, b), min(max(a, b), c))
                // Dutch national flag: [low, lt) < pivot, [lt, i) == pivot, (gt, high] > pivot.
                var lt = low, i = low, gt = high
                while i <= gt {
                    let value = buffer[i]
                    if value < pivot {
                        buffer.swapAt(lt, i); lt += 1; i += 1
                    } else if value > pivot {
                        buffer.swapAt(i, gt); gt -= 1
                    } else {
                        i += 1
                    }
                }
                if k < lt { high = lt - 1 } else if k > gt { low = gt + 1 } else { return pivot }
            }
            return buffer[k]
        }
    }
}
