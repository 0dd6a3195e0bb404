import Testing
@testable import UsedSpaceCore

/// Templates: the syntax, every placeholder's value on numbers worked out by hand, and the
/// mistakes, each pointed at the character it is at.
@Suite struct TemplateTests {
    /// 4 KiB blocks: 1,000,000 in all, 600,000 free, 550,000 of them available, 1,000
    /// inodes with 400 free. Used 400,000 blocks = 1,638,400,000 bytes; available
    /// 2,252,800,000; reserved 50,000 blocks = 204,800,000; total 4,096,000,000. The used
    /// share is 400,000 / 950,000 = 42.105…%, df's Use% ⌈42.105⌉ = 43.
    static let stats = FilesystemStats(blockSize: 4096, totalBlocks: 1_000_000, freeBlocks: 600_000, availableBlocks: 550_000,
                                       totalInodes: 1000, freeInodes: 400)

    static func snapshot(_ stats: FilesystemStats? = stats, state: SnapshotState = .fresh, error: String? = nil) -> Snapshot {
        Snapshot(path: "/home/ann", mountPoint: "/home", fileSystemType: "ext4", stats: stats, state: state, seq: 7,
                 sampledAt: Timestamp(secondsSinceEpoch: 1_700_000_000), source: .daemon, error: error)
    }

    static func render(_ text: String, _ snapshot: Snapshot = snapshot(), label: String = "", unit: SizeUnit = .file,
                       icons: [String] = []) throws -> String {
        try Template.parse(text).text(TemplateContext(snapshot: snapshot, label: label, unit: unit, barCells: 10, icons: icons))
    }

    @Test(arguments: [
        ("{percent}", "42.1"), ("{percent:.0}", "42"), ("{percent:.3}", "42.105"), ("{used_percent}", "43"),
        ("{used}", "1.64 GB"), ("{free}", "2.25 GB"), ("{total}", "4.1 GB"), ("{reserved}", "204.8 MB"),
        ("{used:iec}", "1.6G"), ("{free:iec}", "2.1G"), ("{total:iec}", "3.9G"), ("{reserved:iec}", "196M"),
        ("{used:si}", "1.7G"), ("{free:si}", "2.3G"), ("{total:si}", "4.1G"), ("{reserved:si}", "205M"),
        ("{used:bytes}", "1638400000"), ("{used:iec:.2}", "1.53G"), ("{total:si:.0}", "5G"),
        ("{inodes}", "600 used, 400 free"), ("{inodes_used}", "600"), ("{inodes_free}", "400"), ("{inodes_total}", "1,000"),
        ("{bar}", "[████░░░░░░]"), ("{bar:4}", "[█░░░]"), ("{bar:0}", ""),
        ("{path} {mountpoint} {fstype}", "/home/ann /home ext4"),
        ("{percent:>6}|", "  42.1|"), ("{percent:<6}|", "42.1  |"), ("{used_percent:>2}", "43"),
        ("{{literal}} {{{percent}}}", "{literal} {42.1}"), ("50%", "50%"), ("", ""),
        ("{ro}", ""), ("{time_to_full}", ""), ("{error}", ""), ("{icon}", ""),
    ])
    func placeholdersShowTheNumbers(_ template: String, _ expected: String) throws {
        #expect(try Self.render(template) == expected)
    }

    @Test func theUnitSettingAppliesWhereAPlaceholderNamesNone() throws {
        #expect(try Self.render("{used} {free:file}", unit: .iec) == "1.6G 2.25 GB")
        #expect(try Self.render("{label}{used}", label: "~ ", unit: .bytes) == "~ 1638400000")
    }

    @Test func theIconRampGoesByTheUsedShare() throws {
        let ramp = ["▁", "▃", "▅", "▇"]
        func icon(used: UInt64) throws -> String {
            let stats = FilesystemStats(blockSize: 1, totalBlocks: 100, freeBlocks: 100 - used, availableBlocks: 100 - used)
            return try Self.render("{icon}", Self.snapshot(stats), icons: ramp)
        }
        // A quarter each: below 25 % the first, from 75 % the last, full the last.
        #expect(try [0, 24, 25, 49, 50, 74, 75, 99, 100].map { try icon(used: $0) } == ["▁", "▁", "▃", "▃", "▅", "▅", "▇", "▇", "▇"])
    }

    @Test func aReadOnlyFilesystemShowsItsMark() throws {
        var stats = Self.stats
        stats.readOnly = true
        #expect(try Self.render("{ro}", Self.snapshot(stats)) == "ro")
    }

    @Test func aFailedSnapshotHasNoNumbersButItsError() throws {
        let failed = Self.snapshot(nil, state: .failed, error: "/data: no such file or directory")
        #expect(try Self.render("{used}|{percent}|{bar}|{error}", failed) == "|||/data: no such file or directory")
    }

    @Test(arguments: [
        ("{usd}", 1, "unknown placeholder {usd} (did you mean {used}?)"),
        ("free: {fre:iec}", 7, "unknown placeholder {fre}"),
        ("{}", 1, "empty placeholder"),
        ("abc {free", 4, "'{' opens a placeholder that is not closed"),
        ("a } b", 2, "'}' closes no placeholder"),
        ("{free{used}}", 5, "'{' inside a placeholder"),
        ("{percent:iec}", 9, "the unit 'iec' applies to used, free, total and reserved, not {percent}"),
        ("{used:iec:si}", 10, "{used} has a unit already"),
        ("{used:.2}", 1, "a precision applies to sizes in si or iec: write the unit too, e.g. {used:iec:.1}"),
        ("{used:file:.2}", 1, "a precision applies to sizes in si or iec, not file"),
        ("{used:bytes:.1}", 1, "a precision applies to sizes in si or iec, not bytes"),
        ("{percent:.7}", 9, "'.7': the precision is a number from 0 to 6"),
        ("{percent:>0}", 9, "the width is a number from 1 to 200"),
        ("{percent:>}", 9, "the width is a number"),
        ("{path:5}", 6, "a number of cells ('5') applies to {bar}"),
        ("{bar:101}", 5, "the number of cells is a number from 0 to 100"),
        ("{free:GiB}", 6, "'GiB' is not a modifier; the modifiers are a unit (file, si, iec, bytes)"),
        ("{used::iec}", 6, "'' is not a modifier"),
        ("ok\n{free}", 2, "control characters are not allowed"),
        ("\u{1B}[31m", 0, "control characters are not allowed"),
    ])
    func mistakesAreReportedAtTheirCharacter(_ text: String, _ offset: Int, _ message: String) {
        do {
            _ = try Template.parse(text)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.offset == offset, "\(text.debugDescription): \(error)")
            #expect(error.message.contains(message), "\(text.debugDescription): \(error.message)")
        }
    }

    @Test func hostileTemplatesAreRefusedOrShownLiterally() throws {
        #expect(throws: TemplateError.self) { try Template.parse(String(repeating: "x", count: Template.maximumLength + 1)) }
        #expect(try Template.parse(String(repeating: "{{", count: 500)).text(TemplateContext(snapshot: Self.snapshot())).count == 500)
        // A long unknown name is cut in the message, never echoed whole or raw.
        let long = "{" + String(repeating: "z", count: 900) + "}"
        #expect(throws: TemplateError.self) { try Template.parse(long) }
        // Tabs and any printable text are fine; markup is the renderers' business.
        #expect(try Self.render("\t<b>{percent}</b> 🙂") == "\t<b>42.1</b> 🙂")
    }

    @Test func detailsLinesWhosePlaceholdersAreAllEmptyAreLeftOut() throws {
        let templates = try ["Used: {used}", "Trend: {time_to_full}", "—", "{inodes_used}{time_to_full}"].map(Template.parse)
        let lines = BarTemplates.lines(templates, TemplateContext(snapshot: Self.snapshot()))
        #expect(lines == ["Used: 1.64 GB", "—", "600"])
    }
}
