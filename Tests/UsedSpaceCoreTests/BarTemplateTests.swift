import Testing
@testable import UsedSpaceCore

/// Templates per state in the bar formats and the text format, and the configuration that
/// sets them: [bar], [filesystem PATH] sections, and errors that point at their character.
@Suite struct BarTemplateTests {
    static func snapshot(used: UInt64, state: SnapshotState = .fresh, path: String = "/data", mountPoint: String = "/data") -> Snapshot {
        // 1,000 blocks of 1 MB, none reserved: used share = used / 1,000.
        let stats = FilesystemStats(blockSize: 1_000_000, totalBlocks: 1000, freeBlocks: 1000 - used, availableBlocks: 1000 - used)
        return Snapshot(path: path, mountPoint: mountPoint, fileSystemType: "ext4", stats: stats, state: state, seq: 1,
                        sampledAt: Timestamp(secondsSinceEpoch: 0), source: .daemon, error: state == .stale ? "slow" : nil)
    }

    static func failed(notMounted: Bool) -> Snapshot {
        var snapshot = Snapshot(path: "/media/usb", mountPoint: nil, fileSystemType: nil, stats: nil, state: .failed, seq: 1,
                                sampledAt: Timestamp(secondsSinceEpoch: 0), source: .daemon, error: "/media/usb: gone")
        snapshot.notMounted = notMounted
        return snapshot
    }

    static func options(_ text: String) throws -> BarOptions { try Configuration.parse("[bar]\n" + text).bar }

    static func block(_ snapshot: Snapshot, _ options: BarOptions, expanded: Bool = false) -> BarBlock {
        BarBlock(snapshot, options: options, severity: FilesystemLevel.decide(snapshot, limits: options.severity, previous: nil), expanded: expanded)
    }

    @Test func eachStateHasItsTemplate() throws {
        let options = try Self.options("""
            warn = 80%
            critical = 90%
            hide-below = 50%
            template = {free:si} free
            template-warning = ! {free:si}
            template-critical = !! {free:si}
            template-stale = {free:si}?
            template-failed = no disk: {error}
            template-not-mounted = unplugged
            template-below = ""
            """)
        #expect(Self.block(Self.snapshot(used: 600), options).fullText == "400M free")
        #expect(Self.block(Self.snapshot(used: 850), options).fullText == "! 150M")
        #expect(Self.block(Self.snapshot(used: 950), options).fullText == "!! 50M")
        #expect(Self.block(Self.snapshot(used: 600, state: .stale), options).fullText == "400M?")
        #expect(Self.block(Self.failed(notMounted: false), options).fullText == "no disk: /media/usb: gone")
        #expect(Self.block(Self.failed(notMounted: true), options).fullText == "unplugged")
        let below = Self.block(Self.snapshot(used: 100), options)
        #expect(below.hidden && below.fullText.isEmpty)
        #expect(I3blocksRenderer.line(below) == #"{"full_text":"","short_text":""}"#)
    }

    @Test func withoutTemplatesTheBlockIsAsBefore() throws {
        let block = Self.block(Self.snapshot(used: 421), try Self.options("bar-width = 5"))
        #expect(block.fullText == "[██░░░] 42.1%")
        #expect(block.shortText == "42.1%")
        #expect(Self.block(Self.snapshot(used: 421, state: .stale), BarOptions()).fullText == "[████░░░░░░] 42.1% (stale)")
        // Without a template of its own, a stale block is its level's text and a mark.
        let stale = Self.block(Self.snapshot(used: 421, state: .stale), try Self.options("template = {used_percent}%"))
        #expect(stale.fullText == "43% (stale)")
    }

    @Test func anEmptyTemplateHidesTheBlockButNeverAConfigurationProblem() throws {
        let options = try Self.options("template = \"\"")
        #expect(Self.block(Self.snapshot(used: 500), options).hidden)
        var troubled = Self.snapshot(used: 500)
        troubled.configurationProblem = "config:3: nonsense"
        let shown = Self.block(troubled, options)
        #expect(!shown.hidden && shown.fullText == " \u{26A0} config")
    }

    @Test func theDetailsAreATemplateToo() throws {
        let options = try Self.options("""
            template-details = Avail {free:iec}
            template-details = {time_to_full}
            template-details = of {total:iec}
            """)
        let block = Self.block(Self.snapshot(used: 500), options, expanded: true)
        #expect(block.details == ["Avail 477M", "of 954M"])
        #expect(block.fullText.hasSuffix("  Avail 477M · of 954M"))
        #expect(TextRenderer.detailLines(Self.snapshot(used: 500), options: options) == ["Avail 477M", "of 954M"])
    }

    @Test func theTextFormatTakesTemplatesWidthsAndGlyphs() throws {
        let snapshot = Self.snapshot(used: 421)
        #expect(TextRenderer.statusLine(snapshot) == "[████████░░░░░░░░░░░░]  42.1%")
        #expect(TextRenderer.statusLine(snapshot, options: try Self.options("bar-width = 8\nbar-glyphs = #-")) == "[###-----]  42.1%")
        #expect(TextRenderer.statusLine(snapshot, options: try Self.options("bar-width = 0")) == " 42.1%")
        #expect(TextRenderer.statusLine(snapshot, options: try Self.options("template = {used_percent}% of {mountpoint}")) == "43% of /data")
        #expect(TextRenderer.statusLine(Self.snapshot(used: 421, state: .stale)) == "[████████░░░░░░░░░░░░]  42.1%  (stale: slow)")
    }

    @Test func filesystemSectionsOverrideBarForTheirPathOrMountPoint() throws {
        let configuration = try Configuration.parse("""
            [bar]
            label = "disk "
            warn = 80%
            [filesystem /data]
            label = "data "
            warn = 50%
            notify-free-below = 20%
            [filesystem /]
            hidden = yes
            [filesystem ~/src]
            template = src {free:iec}
            """)
        let profiles = BarProfiles(configuration: configuration, commandLine: [("bar-width", "0")], home: "/home/ann")
        let data = profiles.options(watchedPath: "/data", snapshot: Self.snapshot(used: 600))
        #expect(data.label == "data " && data.severity.warning == [.usedAtLeast(Fraction(numerator: 50, denominator: 100))])
        #expect(data.barWidth == 0, "the command line wins over a section")
        // By mount point: a path below /data, watched as itself.
        let below = profiles.options(watchedPath: "/data/photos", snapshot: Self.snapshot(used: 600, path: "/data/photos"))
        #expect(below.label == "data ")
        // By the watched path as written, ~ expanded, before any mount point.
        let source = profiles.options(watchedPath: "/home/ann/src", snapshot: Self.snapshot(used: 1, path: "/home/ann/src", mountPoint: "/"))
        #expect(source.templates.normal?.source == "src {free:iec}" && !source.hidden)
        let root = profiles.options(watchedPath: "/", snapshot: Self.snapshot(used: 1, path: "/", mountPoint: "/"))
        #expect(root.hidden && root.label == "disk ")
        #expect(Self.block(Self.snapshot(used: 1, path: "/", mountPoint: "/"), root).hidden)
        let other = profiles.options(watchedPath: "/srv", snapshot: Self.snapshot(used: 1, path: "/srv", mountPoint: "/srv"))
        #expect(other == profiles.base)
        let policy = configuration.notifyPolicy(watchedPath: "/data", snapshot: Self.snapshot(used: 600), home: nil)
        #expect(policy.freeShare == Fraction(numerator: 20, denominator: 100))
        #expect(configuration.notifyPolicy(watchedPath: "/srv", snapshot: Self.snapshot(used: 1, path: "/srv", mountPoint: "/srv"), home: nil) == LowSpacePolicy())
    }

    @Test(arguments: [
        ("[bar]\ntemplate = {label}{usd}", 2, 20, "template: unknown placeholder {usd}"),
        ("[bar]\ntemplate = \"a \\\"q\\\" {nope}\"", 2, 22, "unknown placeholder {nope}"),
        ("[filesystem /data]\ntemplate-warning={free:iec:.9}", 2, 28, "the precision is a number from 0 to 3"),
        ("[filesystem]\nlabel = x", 1, nil, "[filesystem] names the path or mount point"),
        ("[filesystem data]\nlabel = x", 1, nil, "the path must be absolute or start with ~/"),
        ("[filesystem /data]\ncolour = red", 2, nil, "unknown key 'colour' in [filesystem]"),
        ("[filesystem /data]\nnotify-free-below = lots", 2, nil, "notify-free-below: 'lots' is not a percentage"),
        ("[bar /data]\nlabel = x", 1, nil, "[bar] takes nothing after its name"),
        ("[bar]\nunit = GiB", 2, nil, "unit: 'GiB' is not a unit; the units are file, si, iec, bytes"),
        ("[bar]\nbar-glyphs = ###", 2, nil, "bar-glyphs: '###' is not two characters"),
    ])
    func configurationMistakesSayWhere(_ text: String, _ line: Int, _ column: Int?, _ message: String) {
        let problems = Configuration.check(text)
        #expect(problems.count == 1, "\(problems)")
        guard let problem = problems.first else { return }
        #expect(problem.line == line)
        #expect(problem.column == column, "\(problem)")
        #expect(problem.message.contains(message), "\(problem.message)")
        #expect(throws: ConfigError.self) { try Configuration.parse(text) }
    }
}
