/// The values DesktopFormatParityTests give both formatters: every edge where a digit, a
/// unit or a cell changes, each side of it, at every magnitude, and a seeded spread.
enum FormatParityValues {
    /// Each decimal unit (KB to EB) with its rounding step: whole KB, tenths of a MB,
    /// hundredths from GB up.
    static let units: [(size: UInt64, step: UInt64)] = [
        (1000, 1000), (1_000_000, 100_000), (1_000_000_000, 10_000_000),
        (1_000_000_000_000, 10_000_000_000), (1_000_000_000_000_000, 10_000_000_000_000),
        (1_000_000_000_000_000_000, 10_000_000_000_000_000),
    ]

    /// 0 to 3,000 bytes; in each unit, each side of every step and of every half step (the
    /// halves that ICU rounds to even) over its first and last 1,000 steps (999,499 and
    /// 999,500: "999 KB" and "1,000 KB") and 1,000 steps spread between; each power of 2
    /// and of 1000 ± 1 (2⁵³ and beyond, where a double no longer holds every count);
    /// Int64.max, above which UsedSpaceCore writes Int64.max; and 20,000 values spread over
    /// every magnitude.
    static var byteCounts: [UInt64] {
        var values = Array(UInt64(0)...3000)
        for (size, step) in units {
            let first = size / step
            let (top, overflow) = size.multipliedReportingOverflow(by: 1000)
            let last = overflow ? UInt64.max / step : top / step
            var steps = Array(first..<(first + 1000)) + Array((last - 1000)...last)
            steps += stride(from: first, through: last, by: max(1, Int((last - first) / 1000)))
            for multiple in steps {
                let (base, overflow) = multiple.multipliedReportingOverflow(by: step)
                guard !overflow, base > 0, base <= UInt64.max - step else { continue }
                values += [base - 1, base, base + 1, base + step / 2 - 1, base + step / 2, base + step / 2 + 1]
            }
        }
        for exponent in 1...63 {
            let power = UInt64(1) << exponent
            values += [power - 1, power, power + 1]
        }
        var power: UInt64 = 1
        while power <= UInt64.max / 1000 {
            power *= 1000
            values += [power - 1, power, power + 1]
        }
        values += [UInt64(Int64.max) - 1, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max - 1, UInt64.max]
        var random = SeededRandom()
        for _ in 0..<20_000 { values.append(random.anyMagnitude()) }
        return Array(Set(values)).sorted()
    }

    /// A byte count as statvfs gives them from 2⁵³ up, where a double (what the desktops
    /// read from D-Bus and JSON) holds only some counts: whole blocks of 4 KiB, which a
    /// double holds exactly up to 2⁶⁵. Below, any count.
    static func asBlocks(_ bytes: UInt64) -> UInt64 {
        bytes < 1 << 53 ? bytes : bytes & ~4095
    }

    /// The smallest step of a size held exactly at `usable`'s magnitude (asBlocks).
    static func unit(_ usable: UInt64) -> UInt64 { usable < 1 << 53 ? 1 : 4096 }

    /// (used, free) pairs: every pair with used + free ≤ 60; at magnitudes from 2¹⁰ to
    /// 2⁶³ (each side of 2 PiB, where format.js changes from exact arithmetic to doubles),
    /// the used shares that are exactly a half of a tenth of a percent (the percentage's
    /// rounding) or a cell's edge (a bar of 20 and of 1000 cells), and each side by the
    /// smallest step; 0, 1 and 2 steps from empty and from full; and 5,000 pairs spread over
    /// every magnitude.
    static var usedFreePairs: [(used: UInt64, free: UInt64)] {
        var pairs: [(used: UInt64, free: UInt64)] = []
        for usable in UInt64(0)...60 {
            for used in 0...usable { pairs.append((used, usable - used)) }
        }
        var random = SeededRandom()
        var permille = Array(UInt64(0)...12) + Array(UInt64(494)...506) + Array(UInt64(988)...999)
        for _ in 0..<40 { permille.append(random.next() % 1000) }
        var shares: [(numerator: UInt64, denominator: UInt64)] = permille.map { (2 * $0 + 1, 2000) }
        shares += (UInt64(0)...20).map { ($0, 20) }
        var thousandths = Array(UInt64(0)...12) + Array(UInt64(988)...1000)
        for _ in 0..<30 { thousandths.append(random.next() % 1000) }
        shares += thousandths.map { ($0, 1000) }
        var magnitudes: [UInt64] = [1 << 50 - 1, 1 << 50, 1 << 50 + 1]
        for exponent in [11, 20, 30, 40, 45, 48, 49, 50, 51, 52, 53, 54, 56, 60, 62, 63] {
            magnitudes += [UInt64(1) << exponent, UInt64(1) << exponent + UInt64(1) << (exponent - 3)]
        }
        for magnitude in magnitudes {
            let step = unit(magnitude)
            for share in shares {
                let scale = magnitude / share.denominator / step * step
                guard scale > 0 else { continue }
                let used = share.numerator * scale, usable = share.denominator * scale
                for neighbour in [used &- step, used, used + step] where neighbour <= usable {
                    pairs.append((neighbour, usable - neighbour))
                }
            }
            let usable = asBlocks(magnitude)
            for steps in UInt64(0)...2 {
                pairs.append((steps * step, usable - steps * step))
                pairs.append((usable - steps * step, steps * step))
            }
        }
        for _ in 0..<5_000 {
            let usable = asBlocks(random.anyMagnitude() >> 1)
            let share = random.next() % (usable + 1)
            let used = unit(usable) == 1 ? share : share & ~4095
            pairs.append((used, usable - used))
        }
        return pairs
    }

    /// Seconds to full: −1 to 91, and at each unit (minute, hour, day, week) each side of its
    /// whole and half counts up to 40 units (where the count rounds up), each side of where
    /// the unit changes (90 minutes, 36 hours, 14 days), and up to 2⁵³ − 1, the largest count
    /// of seconds a desktop's double holds exactly.
    static var seconds: [Int64] {
        var values = Array(Int64(-1)...91)
        for size: Int64 in [60, 3600, 86_400, 7 * 86_400] {
            for count in Int64(0)...40 {
                let base = count * size
                values += [base - 1, base, base + 1, base + size / 2 - 1, base + size / 2, base + size / 2 + 1]
            }
        }
        for change: Int64 in [5400, 36 * 3600, 14 * 86_400] {
            values += [change - 31, change - 30, change - 1, change, change + 1, change + 29, change + 30]
        }
        values += [1 << 31, 1 << 40, 1 << 53 - 1]
        return values.filter { $0 >= -1 }
    }
}

/// A fixed sequence of pseudo-random numbers (a 64-bit LCG), so that a failure repeats.
struct SeededRandom {
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 1 ^ state >> 33
    }

    /// A number of 1 to 64 bits, each length as likely.
    mutating func anyMagnitude() -> UInt64 {
        let bits = next() % 64 + 1
        return bits == 64 ? next() : next() & (UInt64(1) << bits - 1)
    }
}
