import Testing
@testable import UsedSpaceCore

/// Settings read back to the user as they would write them, and errors that name their key
/// and what would be right.
@Suite struct ReadBackTests {
    @Test(arguments: [
        ("0.01%", "0.01"), ("0.1%", "0.1"), ("5%", "5"), ("0.0001", "0.01"), ("1", "100"), ("0.000000000001%", "0.000000000001"), ("0", "0"),
    ])
    func percentagesAsWritten(_ written: String, _ shown: String) throws {
        #expect(PercentText.exact(try ThresholdParser.parse(written)) == shown)
    }

    @Test func aFractionThatDoesNotEndIsRoundedAtTwelveDecimals() {
        #expect(PercentText.exact(Fraction(numerator: 1, denominator: 3)) == "33.333333333333")
        #expect(PercentText.exact(Fraction(numerator: 2, denominator: 3)) == "66.666666666667")
    }

    @Test(arguments: [
        ("1GiB", "1 GiB"), ("5GB", "5 GB"), ("1536MiB", "1536 MiB"), ("1.5GB", "1500 MB"), ("123", "123 bytes"), ("0", "0 bytes"),
    ])
    func sizesAsWritten(_ written: String, _ shown: String) throws {
        #expect(ByteSizeParser.describe(try #require(ByteSizeParser.parse(written))) == shown)
    }

    @Test(arguments: [(5_000_000, "5 s"), (1_500_000, "1.5 s"), (250_000, "250 ms"), (600_000_000, "10 min"), (86_400_000_000, "24 h"), (90_000_000, "90 s")])
    func durationsAsWritten(_ microseconds: UInt64, _ shown: String) {
        #expect(DurationParser.describe(microseconds: microseconds) == shown)
    }

    @Test(arguments: [
        ("[bar]\nwarn = 180%\n", "line 2: warn: '180%' is over 100%: a used percentage is from 0% to 100%, such as 80%"),
        ("[bar]\ncritical = lots\n", "line 2: critical: 'lots' is neither a used percentage (80%) nor a free size (5GB, 500MiB)"),
        ("[daemon]\ninterval = 0s\n", "line 2: interval: 0 s is outside the range 100 ms to 24 h"),
        ("[daemon]\nsample-timeout = soon\n", "line 2: sample-timeout: 'soon' is not a duration such as 5s, 500ms or 2min"),
        ("[daemon]\nmax-clients = -1\n", "line 2: max-clients: '-1' is not a whole number from 1 to 65536"),
        ("[prometheus]\ntextfile-dir = metrics\n", "line 2: textfile-dir: 'metrics' must be an absolute path or start with ~/"),
    ])
    func everyConfigurationErrorNamesItsKey(_ text: String, _ message: String) {
        #expect(Configuration.check(text).map(\.description) == [message])
    }

    @Test func conflictingOptionsAreNamedAsSuch() {
        #expect(UsageError.conflicting("--all", "--path", command: "usedspace status").description
            == "options '--all' and '--path' of 'usedspace status' exclude each other; give one of them")
    }
}
