import Testing
@testable import UsedSpaceCore

/// Expected tables are written out by hand, column by column.
@Suite struct ListTableTests {
    // 1 KiB blocks: 600 used, 300 available, 100 reserved: df says 67 % (600 / 900).
    static let root = ListRow(mountPoint: "/", fileSystemType: "ext4",
                              stats: FilesystemStats(blockSize: 1024, totalBlocks: 1000, freeBlocks: 400, availableBlocks: 300,
                                                     totalInodes: 100, freeInodes: 75))
    static let stick = ListRow(mountPoint: "/media/u/USB STICK", fileSystemType: "vfat",
                               stats: FilesystemStats(blockSize: 4096, totalBlocks: 256, freeBlocks: 0, availableBlocks: 0, readOnly: true))
    static let nas = ListRow(mountPoint: "/mnt/nas", fileSystemType: "nfs4", stats: nil, problem: "not answering")
    static let rows = [root, stick, nas]

    @Test func aWideTerminalShowsEveryColumn() {
        #expect(ListTable.render(Self.rows, options: .init(columns: 200)) == [
            "Mounted on          Type                Use%  Used  Free   Size  IUse%  RO",
            "/                   ext4  [██████░░░░]   67%  600K  300K  1000K    25%",
            "/media/u/USB STICK  vfat  [██████████]  100%  1.0M     0   1.0M      -  ro",
            "/mnt/nas            nfs4  not answering",
        ])
    }

    @Test func aPipeHasNoLimitAndNoOptionalColumnsWithoutContent() {
        #expect(ListTable.render([Self.root], options: .init(unit: .bytes)) == [
            "Mounted on  Type                Use%    Used    Free     Size  IUse%",
            "/           ext4  [██████░░░░]   67%  614400  307200  1024000    25%",
        ])
    }

    @Test func fortyColumnsDropTheDocumentedColumnsInOrder() {
        #expect(ListTable.render(Self.rows, options: .init(columns: 40)) == [
            "Mounted on          Use%  Free  RO",
            "/                    67%  300K",
            "/media/u/USB STICK  100%     0  ro",
            "/mnt/nas            not answering",
        ])
    }

    @Test func fiftyColumnsKeepSizeAndUsed() {
        // 74 wide: without the bar 60, without IUse% 53, without Type 47: fits.
        #expect(ListTable.render(Self.rows, options: .init(columns: 50)) == [
            "Mounted on          Use%  Used  Free   Size  RO",
            "/                    67%  600K  300K  1000K",
            "/media/u/USB STICK  100%  1.0M     0   1.0M  ro",
            "/mnt/nas            not answering",
        ])
    }

    @Test func twentyColumnsShortenMountPointsInTheMiddleThenCut() {
        #expect(ListTable.render(Self.rows, options: .init(columns: 20)) == [
            "Mounted on  Use%  Fr",
            "/            67%  30",
            "/medi…TICK  100%",
            "/mnt/nas    not answ",
        ])
    }

    @Test func longMountPointsGoFirstButNotBelowTwentyColumns() {
        let long = ListRow(mountPoint: "/srv/backups/2024/photos-of-the-family", fileSystemType: "xfs",
                           stats: FilesystemStats(blockSize: 1024, totalBlocks: 1000, freeBlocks: 1000, availableBlocks: 1000))
        // 38 + 4 + 12 + 4 + 4 + 5 + 5 + 5 and 7 separators = 91; 80 columns: 27 for it.
        #expect(ListTable.render([long], options: .init(columns: 80)) == [
            "Mounted on" + String(repeating: " ", count: 19) + "Type                Use%  Used   Free   Size  IUse%",
            "/srv/backups/…of-the-family  xfs   [░░░░░░░░░░]    0%     0  1000K  1000K      -",
        ])
    }

    @Test func coloursMarkTheBarAndPercentOfALevelAndAProblem() {
        var full = Self.root
        full.severity = .critical
        let lines = ListTable.render([full, Self.nas], options: .init(colors: true))
        #expect(lines[1] == "/           ext4  \u{1B}[31m[██████░░░░]\u{1B}[0m   \u{1B}[31m67%\u{1B}[0m  600K  300K  1000K    25%")
        #expect(lines[2] == "/mnt/nas    nfs4  \u{1B}[31mnot answering\u{1B}[0m")
        #expect(!ListTable.render([full], options: .init(colors: false))[1].contains("\u{1B}"))
    }

    @Test func controlCharactersInAMountPointAreShownAsQuestionMarks() {
        let odd = ListRow(mountPoint: "/mnt/a\tb\nc\\d", fileSystemType: "tmpfs", stats: nil, problem: "gone")
        #expect(ListTable.render([odd], options: .init())[1] == "/mnt/a?b?c\\d  tmpfs  gone")
    }

    @Test func theTimeToFullColumnAppearsWithAnEstimate() {
        var filling = Self.root
        filling.timeToFull = TimeToFull(lowerSeconds: 3 * 86_400, upperSeconds: 5 * 86_400)
        #expect(ListTable.render([filling], options: .init(barCells: 0)) == [
            "Mounted on  Type  Use%  Used  Free   Size  IUse%  Full in",
            "/           ext4   67%  600K  300K  1000K    25%  3–5 days",
        ])
    }

    @Test func ellipsisKeepsTheStartAndTheEnd() {
        #expect(ListTable.ellipsized("/media/u/USB STICK", width: 10) == "/medi…TICK")
        #expect(ListTable.ellipsized("/abc", width: 10) == "/abc")
        #expect(ListTable.ellipsized("/abcdef", width: 2) == "/…")
        #expect(ListTable.ellipsized("/abcdef", width: 1) == "…")
        #expect(ListTable.ellipsized("/abcdef", width: 0) == "")
    }

    @Test func readOnlyFilesystemsAreNeverAWarning() {
        let policy = SeverityPolicy(warning: [.usedAtLeast(Fraction(numerator: 8, denominator: 10))])
        #expect(ListRow.severity(of: Self.stick.stats, policy: policy) == .normal)
        var writable = Self.stick.stats!
        writable.readOnly = false
        // Writable, the stick (full) is past list's 90 %, the critical level the policy leaves unset.
        #expect(ListRow.severity(of: writable, policy: policy) == .critical)
    }
}
