import Testing
@testable import UsedSpaceCore

@Suite struct FilesystemStatsTests {
    // The figures df prints for an ext4 with 5 % reserved: Use% counts the reserve in
    // neither used nor available, and rounds up (coreutils df.c).
    @Test func dfPercentRoundsUpOverUsedPlusAvailable() {
        let stats = FilesystemStats(blockSize: 4096, totalBlocks: 1000, freeBlocks: 400, availableBlocks: 350)
        #expect(stats.usedBlocks == 600)
        #expect(stats.reservedBlocks == 50)
        #expect(stats.usedPercent == 64) // 600/950 = 63.16 % → 64
        #expect(stats.usedBytes == 600 * 4096)
        #expect(stats.freeBytes == 350 * 4096)
        #expect(stats.reservedBytes == 50 * 4096)
    }

    @Test func percentIsExactAtWholeValues() {
        #expect(FilesystemStats(blockSize: 1, totalBlocks: 100, freeBlocks: 75, availableBlocks: 75).usedPercent == 25)
        #expect(FilesystemStats(blockSize: 1, totalBlocks: 1_000_000, freeBlocks: 749_999, availableBlocks: 749_999).usedPercent == 26)
        #expect(FilesystemStats(blockSize: 1, totalBlocks: 10, freeBlocks: 10, availableBlocks: 10).usedPercent == 0)
        #expect(FilesystemStats(blockSize: 1, totalBlocks: 10, freeBlocks: 0, availableBlocks: 0).usedPercent == 100)
    }

    @Test func availableAboveFreeDoesNotUnderflow() {
        let stats = FilesystemStats(blockSize: 512, totalBlocks: 100, freeBlocks: 10, availableBlocks: 20)
        #expect(stats.reservedBlocks == 0)
        #expect(stats.usedBlocks == 90)
    }

    @Test func freeAboveTotalDoesNotUnderflow() {
        let stats = FilesystemStats(blockSize: 512, totalBlocks: 100, freeBlocks: 200, availableBlocks: 200)
        #expect(stats.usedBlocks == 0)
        #expect(stats.usedPercent == 0)
    }

    @Test func noUsableBlocksHasNoRate() {
        let stats = FilesystemStats(blockSize: 4096, totalBlocks: 100, freeBlocks: 100, availableBlocks: 0)
        #expect(stats.usedRate == nil)
        #expect(stats.usedPercent == nil)
        #expect(FilesystemStats(blockSize: 4096, totalBlocks: 0, freeBlocks: 0, availableBlocks: 0).usedRate == nil)
    }

    @Test func hugeFilesystemsDoNotOverflow() {
        let stats = FilesystemStats(blockSize: 1 << 20, totalBlocks: 1 << 62, freeBlocks: 1 << 61, availableBlocks: 1 << 61)
        #expect(stats.totalBytes == UInt64.max)
        #expect(stats.usedPercent == 50)
        let oneBlockOverHalf = FilesystemStats(blockSize: 1, totalBlocks: 1 << 63, freeBlocks: (1 << 62) - 1, availableBlocks: (1 << 62) - 1)
        #expect(oneBlockOverHalf.usedPercent == 51)
    }

    @Test func inodesAreUnknownWithoutAnInodeTable() {
        #expect(FilesystemStats(blockSize: 4096, totalBlocks: 10, freeBlocks: 5, availableBlocks: 5).usedInodes == nil)
        #expect(FilesystemStats(blockSize: 4096, totalBlocks: 10, freeBlocks: 5, availableBlocks: 5, totalInodes: 100, freeInodes: 40).usedInodes == 60)
    }
}

@Suite struct BarAndPercentTests {
    @Test func barFillsByTheFloorOfTheShare() {
        #expect(ProgressBar.render(Fraction(numerator: 352, denominator: 1000)) == "[███████░░░░░░░░░░░░░]")
        #expect(ProgressBar.render(Fraction(numerator: 999, denominator: 1000)) == "[███████████████████░]")
        #expect(ProgressBar.render(Fraction(numerator: 1, denominator: 1)) == "[████████████████████]")
        #expect(ProgressBar.render(nil) == "[░░░░░░░░░░░░░░░░░░░░]")
        #expect(ProgressBar.render(Fraction(numerator: 1, denominator: 2), width: 4) == "[██░░]")
    }

    @Test func percentHasOneDecimalAndNeverClaimsFullTooEarly() {
        #expect(PercentText.oneDecimal(Fraction(numerator: 352, denominator: 1000)) == " 35.2")
        #expect(PercentText.oneDecimal(Fraction(numerator: 3525, denominator: 10000)) == " 35.3")
        #expect(PercentText.oneDecimal(Fraction(numerator: 0, denominator: 7)) == "  0.0")
        #expect(PercentText.oneDecimal(Fraction(numerator: 99_999, denominator: 100_000)) == " 99.9")
        #expect(PercentText.oneDecimal(Fraction(numerator: 5, denominator: 5)) == "100.0")
        #expect(PercentText.oneDecimal(Fraction(numerator: 1, denominator: 3), padded: false) == "33.3")
    }
}

@Suite struct ThresholdParserTests {
    @Test func decimalsAndPercentages() throws {
        #expect(try ThresholdParser.parse("0.0001") == Fraction(numerator: 1, denominator: 10_000))
        #expect(try ThresholdParser.parse("0.01%") == Fraction(numerator: 1, denominator: 10_000))
        #expect(try ThresholdParser.parse("1") == Fraction(numerator: 1, denominator: 1))
        #expect(try ThresholdParser.parse("0") == Fraction(numerator: 0, denominator: 1))
        #expect(try ThresholdParser.parse(".5") == Fraction(numerator: 5, denominator: 10))
    }

    @Test(arguments: ["", "abc", "1e-4", "-0.1", "0.1.2", "5.", "%", "0x10", " 0.1", "0,1", "١"])
    func rejectsWhatIsNotADecimal(_ text: String) {
        #expect(throws: ThresholdParser.Failure.self) { try ThresholdParser.parse(text) }
    }

    @Test func rejectsOutOfRangeAndTooPrecise() {
        #expect(throws: ThresholdParser.Failure.outOfRange("1.5")) { try ThresholdParser.parse("1.5") }
        #expect(throws: ThresholdParser.Failure.outOfRange("101%")) { try ThresholdParser.parse("101%") }
        #expect(throws: ThresholdParser.Failure.outOfRange("99999999999")) { try ThresholdParser.parse("99999999999") }
        #expect(throws: ThresholdParser.Failure.tooPrecise("0.0000000000001")) { try ThresholdParser.parse("0.0000000000001") }
    }
}
