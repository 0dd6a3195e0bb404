import Testing
@testable import UsedSpaceCore

/// `df -h` and `df -H` sizes, on values worked out by hand from gnulib's human.c (round
/// up; one decimal below 10; a carry to the next unit). The comparison with coreutils
/// itself, over tens of thousands of values and on real filesystems, is in the
/// integration tests (HumanSizeParityTests).
@Suite struct HumanSizeTests {
    @Test(arguments: [
        (UInt64(0), "0"), (1, "1"), (1023, "1023"), (1024, "1.0K"), (1025, "1.1K"), (1536, "1.5K"), (1537, "1.6K"),
        // 10,188 B = 9.949 KiB: one decimal would be 10.0, which df writes "10K".
        (10188, "10K"), (10239, "10K"), (10240, "10K"), (10241, "11K"),
        // 1023.95 KiB rounds up to 1024 KiB: the next unit, "1.0M".
        (1_048_524, "1.0M"), (1_048_575, "1.0M"), (1_048_576, "1.0M"), (1_048_577, "1.1M"),
        (17 << 30, "17G"), ((17 << 30) + 1, "18G"), (UInt64.max, "16E"),
    ] as [(UInt64, String)])
    func binaryAsDfH(_ bytes: UInt64, _ expected: String) {
        #expect(HumanSize.format(bytes, base: .binary) == expected)
    }

    @Test(arguments: [
        (UInt64(999), "999"), (1000, "1.0k"), (1001, "1.1k"), (9_999, "10k"), (99_999, "100k"), (999_001, "1.0M"),
        (1_000_000_000, "1.0G"), (270_553_174_016, "271G"), (UInt64.max, "19E"),
    ] as [(UInt64, String)])
    func decimalAsDfCapitalH(_ bytes: UInt64, _ expected: String) {
        #expect(HumanSize.format(bytes, base: .decimal) == expected)
    }

    @Test func aChosenPrecisionStillRoundsUp() {
        #expect(HumanSize.format(1_638_400_000, base: .binary, fractionDigits: 2) == "1.53G")
        #expect(HumanSize.format(1_638_400_000, base: .binary, fractionDigits: 0) == "2G")
        #expect(HumanSize.format(1024, base: .binary, fractionDigits: 3) == "1.000K")
        #expect(HumanSize.format(1023, base: .binary, fractionDigits: 2) == "1023")
    }
}
