import Testing
@testable import UsedSpaceCore

@Suite struct ByteSizeParserTests {
    @Test func decimalAndBinaryUnits() {
        #expect(ByteSizeParser.parse("5GB") == 5_000_000_000)
        #expect(ByteSizeParser.parse("5 GB") == 5_000_000_000)
        #expect(ByteSizeParser.parse("5gb") == 5_000_000_000)
        #expect(ByteSizeParser.parse("5G") == 5_000_000_000)
        #expect(ByteSizeParser.parse("1.5TB") == 1_500_000_000_000)
        #expect(ByteSizeParser.parse("2GiB") == 2 << 30)
        #expect(ByteSizeParser.parse("512KiB") == 512 << 10)
        #expect(ByteSizeParser.parse("1048576") == 1 << 20)
        #expect(ByteSizeParser.parse("10B") == 10)
    }

    @Test(arguments: ["", "GB", "5XB", "-5GB", "5..5GB", "5.GB", "1e9", "5 G B x", "99999999999999999999", "20000000PB"])
    func rejectsWhatIsNotASize(_ text: String) {
        #expect(ByteSizeParser.parse(text) == nil)
    }
}

@Suite struct SeverityTests {
    static func stats(usedPercent: UInt64, total: UInt64 = 1000, blockSize: UInt64 = 1_000_000_000) -> FilesystemStats {
        let used = total * usedPercent / 100
        return FilesystemStats(blockSize: blockSize, totalBlocks: total, freeBlocks: total - used, availableBlocks: total - used)
    }

    static let policy = SeverityPolicy(warning: [AlertLimit("80%")!], critical: [AlertLimit("90%")!, AlertLimit("5GB")!])

    @Test func levelsComeOnAtTheirLimits() {
        #expect(Self.policy.severity(of: Self.stats(usedPercent: 79), previous: .normal) == .normal)
        #expect(Self.policy.severity(of: Self.stats(usedPercent: 80), previous: .normal) == .warning)
        #expect(Self.policy.severity(of: Self.stats(usedPercent: 90), previous: .normal) == .critical)
    }

    /// 1 TB at 50 % used: only the "5 GB free" limit can make it critical.
    @Test func aFreeSizeLimitWorksAtAnyShare() {
        let big = FilesystemStats(blockSize: 1_000_000, totalBlocks: 1_000_000, freeBlocks: 4_000, availableBlocks: 4_000)
        #expect(Self.policy.severity(of: big, previous: .normal) == .critical)
        let plenty = FilesystemStats(blockSize: 1_000_000, totalBlocks: 1_000_000, freeBlocks: 500_000, availableBlocks: 500_000)
        #expect(Self.policy.severity(of: plenty, previous: .normal) == .normal)
    }

    /// A value hovering around 80 % does not flap: once on, warning stays until below 79 %.
    @Test func hysteresisKeepsALevelUntilTheValueHasClearlyLeft() {
        var severity = Severity.normal
        var seen: [Severity] = []
        for percent: UInt64 in [79, 80, 79, 80, 79, 78, 79, 80] {
            severity = Self.policy.severity(of: Self.stats(usedPercent: percent), previous: severity)
            seen.append(severity)
        }
        #expect(seen == [.normal, .warning, .warning, .warning, .warning, .normal, .normal, .warning])
    }

    @Test func criticalStepsDownThroughWarning() {
        #expect(Self.policy.severity(of: Self.stats(usedPercent: 89), previous: .critical) == .critical)
        #expect(Self.policy.severity(of: Self.stats(usedPercent: 88), previous: .critical) == .warning)
        #expect(Self.policy.severity(of: Self.stats(usedPercent: 50), previous: .critical) == .normal)
    }

    @Test func freeSizeHysteresisIsAShareOfTheFilesystem() {
        // 1000 GB; critical at ≤ 5 GB free; 1 % slack = 10 GB.
        let policy = SeverityPolicy(critical: [AlertLimit("5GB")!])
        func free(_ gigabytes: UInt64) -> FilesystemStats {
            FilesystemStats(blockSize: 1_000_000_000, totalBlocks: 1000, freeBlocks: gigabytes, availableBlocks: gigabytes)
        }
        #expect(policy.severity(of: free(6), previous: .normal) == .normal)
        #expect(policy.severity(of: free(5), previous: .normal) == .critical)
        #expect(policy.severity(of: free(14), previous: .critical) == .critical)
        #expect(policy.severity(of: free(16), previous: .critical) == .normal)
    }

    @Test func noNumbersKeepTheLevel() {
        #expect(Self.policy.severity(of: nil, previous: .warning) == .warning)
    }

    @Test func limitsParseAndDescribe() {
        #expect(AlertLimit("80%") == .usedAtLeast(Fraction(numerator: 80, denominator: 100)))
        #expect(AlertLimit("5GB") == .freeAtMost(bytes: 5_000_000_000))
        #expect(AlertLimit("80") == .freeAtMost(bytes: 80))
        #expect(AlertLimit("lots") == nil)
        #expect(AlertLimit("120%") == nil)
        #expect(AlertLimit("5GB")?.description == "5 GB free")
    }
}

@Suite struct BarConfigurationTests {
    @Test func theBarSectionIsApplied() throws {
        let configuration = try Configuration.parse("""
            [bar]
            warn = 80%
            warn = 20GB
            critical = 90%
            hysteresis = 2%
            hide-below = 50%
            click-right = baobab "$USEDSPACE_MOUNTPOINT"
            label = "~ "
            bar-width = 5
            color-warning = #FFAA00
            color-critical = none
            """)
        let bar = configuration.bar
        #expect(bar.severity.warning == [.usedAtLeast(Fraction(numerator: 80, denominator: 100)), .freeAtMost(bytes: 20_000_000_000)])
        #expect(bar.severity.critical == [.usedAtLeast(Fraction(numerator: 90, denominator: 100))])
        #expect(bar.severity.hysteresis == Fraction(numerator: 2, denominator: 100))
        #expect(bar.hideBelow == Fraction(numerator: 50, denominator: 100))
        #expect(bar.rightClickCommand == #"baobab "$USEDSPACE_MOUNTPOINT""#)
        #expect(bar.label == "~ ")
        #expect(bar.barWidth == 5)
        #expect(bar.warningColor == "#FFAA00")
        #expect(bar.criticalColor == nil)
    }

    @Test(arguments: [
        ("[bar]\nwarn = lots\n", "line 2: warn: 'lots' is neither"),
        ("[bar]\ncolor-warning = yellow\n", "line 2: color-warning: 'yellow' is not a colour"),
        ("[bar]\nbar-width = 1000\n", "line 2: bar-width: '1000'"),
        ("[bar]\nwarning = 80%\n", "line 2: unknown key 'warning' in [bar]"),
        ("[daemon]\ninterval = 5s\n[baz]\nx = 1\n", "line 4: unknown section [baz]"),
        ("[bar]\nlabel = \"unterminated\n", "line 2: the quoted value has no closing quote"),
        ("warn = 80%\n", "line 1: 'warn' comes before any [section]"),
        ("[bar\n", "line 1: a section header"),
        ("[bar]\njust words\n", "line 2: expected 'key = value'"),
        ("[bar]\nlabel = a\u{1B}[31mred\n", "line 2: control characters are not allowed"),
    ])
    func mistakesAreReportedWithTheirLine(_ text: String, _ message: String) {
        #expect(throws: ConfigError.self) { try Configuration.parse(text) }
        do {
            _ = try Configuration.parse(text)
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    @Test func anOversizedFileIsRefused() {
        #expect(throws: ConfigError.self) { try Configuration.parse("# " + String(repeating: "x", count: 70_000)) }
    }
}

@Suite struct BarBlockTests {
    static func snapshot(used: UInt64, of total: UInt64, state: SnapshotState = .fresh) -> Snapshot {
        Snapshot(path: "/home/u", mountPoint: "/home", fileSystemType: "ext4",
                 stats: FilesystemStats(blockSize: 1_000_000, totalBlocks: total, freeBlocks: total - used, availableBlocks: total - used),
                 state: state, seq: 1, sampledAt: Timestamp(secondsSinceEpoch: 0), source: .daemon)
    }

    @Test func hideBelowHidesOnlyWhileNothingIsNoteworthy() {
        var options = BarOptions()
        options.hideBelow = Fraction(numerator: 50, denominator: 100)
        #expect(BarBlock(Self.snapshot(used: 40, of: 100), options: options, severity: .normal, expanded: false).hidden)
        #expect(!BarBlock(Self.snapshot(used: 50, of: 100), options: options, severity: .normal, expanded: false).hidden)
        #expect(!BarBlock(Self.snapshot(used: 40, of: 100), options: options, severity: .warning, expanded: false).hidden)
        #expect(!BarBlock(Self.snapshot(used: 40, of: 100, state: .stale), options: options, severity: .normal, expanded: false).hidden)
        #expect(I3barRenderer.statusLine([BarBlock(Self.snapshot(used: 40, of: 100), options: options, severity: .normal, expanded: false)]) == "[]")
        #expect(PolybarRenderer.line(BarBlock(Self.snapshot(used: 40, of: 100), options: options, severity: .normal, expanded: false)) == "")
    }

    @Test func aLabelCannotInjectPolybarTagsOrControls() {
        var options = BarOptions()
        options.label = "%{F#f00}x\u{1B}"
        let line = PolybarRenderer.line(BarBlock(Self.snapshot(used: 1, of: 2), options: options, severity: .normal, expanded: false))
        #expect(!line.contains("%{F#f00}"))
        #expect(!line.contains("\u{1B}"))
    }

    @Test func waybarEscapesPangoMarkup() {
        var options = BarOptions()
        options.label = "<b>&"
        let line = WaybarRenderer.line(BarBlock(Self.snapshot(used: 1, of: 2), options: options, severity: .normal, expanded: false))
        #expect(line.contains("&lt;b&gt;&amp;"))
    }
}

@Suite struct MetricsTests {
    @Test func labelValuesAreEscapedAndFailedSnapshotsHaveNoSizes() {
        let failed = Snapshot(path: "/a\"b\\c\nd", mountPoint: nil, fileSystemType: nil, stats: nil, state: .failed, seq: 3,
                              sampledAt: Timestamp(secondsSinceEpoch: 10), source: .daemon, error: "x")
        let text = PrometheusTextRenderer.render([failed])
        #expect(text.contains(#"usedspace_up{path="/a\"b\\c\nd",mountpoint="",fstype=""} 0"#))
        #expect(!text.contains("usedspace_size_bytes"))
        #expect(text.contains("usedspace_snapshot_seq{path="))
    }

    @Test func timeToFullIsARangeOfTwoSeries() {
        var snapshot = BarBlockTests.snapshot(used: 50, of: 100)
        snapshot.timeToFull = TimeToFull(lowerSeconds: 3600, upperSeconds: 7200)
        let text = PrometheusTextRenderer.render([snapshot])
        #expect(text.contains(#"usedspace_time_to_full_seconds{path="/home/u",mountpoint="/home",fstype="ext4",bound="lower"} 3600"#))
        #expect(text.contains(#"bound="upper"} 7200"#))
    }
}

@Suite struct ConfigurationCheckTests {
    @Test func everyProblemIsReportedInLineOrder() {
        let errors = Configuration.check("[daemon]\nintervall = 1\n[bar]\nwarn = x\n[zzz]\nk = v\nnot a line\n[prometheus]\ntextfile-dir = rel\n")
        #expect(errors.map(\.line) == [2, 4, 6, 7, 9])
    }

    @Test func aValidFileHasNoProblems() {
        #expect(Configuration.check("[daemon]\npath = ~\n[bar]\nwarn = 80%\n[prometheus]\ntextfile-dir = /var/lib/x\n").isEmpty)
    }
}

/// Inputs the fuzzers found (bench/fuzz.sh keeps their reproducers), kept as tests.
@Suite struct FuzzerFindingsTests {
    @Test func aHugeSizeWithAFractionIsRefusedNotACrash() {
        #expect(ByteSizeParser.parse("18446.8PB") == nil)
        #expect(ByteSizeParser.parse("18446744073709.6M") == nil)
        #expect(Configuration.check("[bar]\ncritical = 18446.8PB\n").count == 1)
    }

    @Test func aConfigurationWithCRLFLineEndsReadsLikeOneWithLF() throws {
        let unix = try Configuration.parse("[bar]\nwarn = 60%\n[daemon]\ninterval = 2s\n")
        let windows = try Configuration.parse("[bar]\r\nwarn = 60%\r\n[daemon]\r\ninterval = 2s\r\n")
        #expect(unix == windows)
        #expect(Configuration.check("[bar]\r\nwarning = 1\r\n").first?.line == 2)
    }

    @Test func aCRLFInsideABodyLineCannotBreakAFrame() throws {
        var decoder = ResponseFrameDecoder()
        let frames = try decoder.feed(Array(ResponseFrame.ok(["a\r\nb", "c"]).utf8))
        #expect(frames.count == 1)
        #expect(frames.first?.lines.count == 3)
    }

    @Test func timesOutsideFourDigitYearsAreRefused() {
        #expect(Timestamp(rfc3339: "0000-01-01T00:00:00+00:01") == nil)
        #expect(Timestamp(rfc3339: "9999-12-31T23:59:59-00:01") == nil)
        #expect(Timestamp(rfc3339: "0000-01-01T00:00:00Z")?.rfc3339 == "0000-01-01T00:00:00Z")
        #expect(Timestamp(rfc3339: "9999-12-31T23:59:59Z")?.rfc3339 == "9999-12-31T23:59:59Z")
    }

    @Test func c1ControlsAreEscapedInJSON() {
        #expect(JSONObjectWriter.quoted("a\u{85}b") == "\"a\\u0085b\"")
    }
}
