import Foundation
import Testing
@testable import UsedSpaceCore

/// Our `ByteCountFormat.file` against Foundation's own `ByteCountFormatter` (`.file`), as
/// shipped in this toolchain, over edge cases and many thousands of values.
@Suite struct ByteCountFormatParityTests {
    static func foundation(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }

    /// centre + delta, or nil where that leaves 0...Int64.max.
    static func offset(_ centre: Int64, by delta: Int64) -> Int64? {
        let (sum, overflow) = centre.addingReportingOverflow(delta)
        return overflow || sum < 0 ? nil : sum
    }

    static func mismatches(_ values: [Int64]) -> [String] {
        // The first few are enough to see the pattern of a mismatch.
        Array(values.lazy.compactMap { value -> String? in
            let ours = ByteCountFormat.file(UInt64(value))
            let theirs = foundation(value)
            return ours == theirs ? nil : "\(value): ours \(ours), Foundation \(theirs)"
        }.prefix(12))
    }

    @Test func documentedExamples() {
        #expect(ByteCountFormat.file(0) == "Zero KB")
        #expect(ByteCountFormat.file(1) == "1 byte")
        #expect(ByteCountFormat.file(999) == "999 bytes")
        #expect(ByteCountFormat.file(1_234_567) == "1.2 MB")
        #expect(ByteCountFormat.file(12_345_678_901) == "12.35 GB")
        #expect(ByteCountFormat.file(999_999) == "1,000 KB")
    }

    @Test func everyValueBelowTenThousand() {
        #expect(Self.mismatches(Array(0...10_000)) == [])
    }

    /// Each unit's boundaries, where rounding can carry into "1,000" or into the next unit.
    @Test func aroundEveryUnitBoundary() {
        var values: [Int64] = []
        let units: [Int64] = [1_000, 1_000_000, 1_000_000_000, 1_000_000_000_000, 1_000_000_000_000_000, 1_000_000_000_000_000_000]
        for unit in units {
            let thousand = unit.multipliedReportingOverflow(by: 1000)
            var centres = [unit, unit * 9]
            if !thousand.overflow { centres += [thousand.partialValue - unit / 2, thousand.partialValue - unit, thousand.partialValue] }
            for centre in centres {
                values += (-600...600).compactMap { Self.offset(centre, by: Int64($0)) }
                values += stride(from: -50_000, through: 50_000, by: 97).compactMap {
                    Self.offset(centre, by: Int64($0) * max(unit / 100_000, 1))
                }
            }
        }
        values += [Int64.max, Int64.max - 1, Int64.max / 2, 1 << 62, (1 << 53) + 1]
        #expect(Self.mismatches(values.filter { $0 >= 0 }) == [])
    }

    /// Exact halves of the last shown digit in every unit: where half-to-even rounding of
    /// the shortest decimal form decides (1.25 MB → "1.2 MB", 2.675 GB → "2.68 GB").
    @Test func halvesOfTheLastDigit() {
        var values: [Int64] = []
        for (unit, step) in [(Int64(1000), Int64(1000)), (1_000_000, 100_000), (1_000_000_000, 10_000_000),
                             (1_000_000_000_000, 10_000_000_000), (1_000_000_000_000_000, 10_000_000_000_000)] {
            for k in 0..<400 { values.append(unit + step * Int64(k) + step / 2) }
        }
        values += stride(from: Int64(1_000_000_000_000_000_000), to: 9_200_000_000_000_000_000, by: 5_000_000_000_000_000)
        #expect(Self.mismatches(values) == [])
    }

    /// Log-uniform random values over the whole range, from a fixed seed so a failure repeats.
    @Test func fiftyThousandRandomValues() {
        var generator = SplitMix64(seed: 0x5EED_2026)
        let values = (0..<50_000).map { _ -> Int64 in
            let bits = Int(generator.next() % 63)
            let magnitude = bits == 0 ? 0 : Int64(generator.next() >> UInt64(64 - bits))
            return magnitude
        }
        #expect(Self.mismatches(values) == [])
    }
}

/// A small deterministic generator (SplitMix64), so random tests repeat exactly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
