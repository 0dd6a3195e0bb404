// libFuzzer target for UsageHistory(decoding:): the free-space history the daemon keeps in
// its state directory, read back at every start. Built only with USEDSPACE_FUZZ=1;
// bench/fuzz.sh builds and runs it. Besides "no crash", it checks for every history read:
// - points are strictly increasing in time, within the capacity, none older than the
//   retention before the newest;
// - decode(encode(h)) == h, and encoding is stable;
// - the time-to-full estimate of it never crashes and, when given, is an ordered range.
import UsedSpaceCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let history = try? UsageHistory(decoding: text) else { return 0 }
    let points = history.points
    guard points.count <= history.capacity else { fatalError("\(points.count) points over the capacity") }
    for (earlier, later) in zip(points, points.dropFirst()) where earlier.secondsSinceEpoch >= later.secondsSinceEpoch {
        fatalError("points out of order: \(earlier) then \(later)")
    }
    if let newest = points.last, let oldest = points.first, newest.secondsSinceEpoch - oldest.secondsSinceEpoch > history.retentionSeconds {
        fatalError("a point older than the retention: \(oldest) with newest \(newest)")
    }
    let encoded = history.encode()
    guard let again = try? UsageHistory(decoding: encoded) else { fatalError("cannot read back \(encoded.prefix(200))") }
    guard again == history, again.encode() == encoded else { fatalError("the history does not round-trip: \(encoded.prefix(200))") }
    if let newest = points.last {
        let estimate = TimeToFullEstimator().estimate(history, now: newest.secondsSinceEpoch, totalBytes: newest.availableBytes &* 2 &+ 1)
        if let estimate, estimate.lowerSeconds > estimate.upperSeconds || estimate.lowerSeconds < 0 {
            fatalError("a range out of order: \(estimate)")
        }
    }
    return 0
}
