import Testing
@testable import UsedSpaceClient
@testable import UsedSpaceCore

/// `usedspace list`'s command line, parsed without running anything.
@Suite struct ListOptionsTests {
    @Test func typesAreRepeatableAndCommaSeparated() throws {
        let options = try ListOptions.parse(["-t", "ext4,xfs", "--type=nfs4", "-x", "tmpfs", "--exclude-type", "squashfs,overlay"])
        #expect(options.types == ["ext4", "xfs", "nfs4"])
        #expect(options.excludedTypes == ["tmpfs", "squashfs", "overlay"])
    }

    @Test func shortOptionsCombineAsGetoptTakesThem() throws {
        // -a is a flag; -x takes the rest of the cluster, -m the next word.
        let options = try ListOptions.parse(["-axtmpfs", "-fjson", "-m", "/media/*"])
        #expect(options.all)
        #expect(options.excludedTypes == ["tmpfs"])
        #expect(options.format == .json)
        #expect(options.mountPatterns == ["/media/*"])
        #expect(try ListOptions.parse(["-m", "/home/", "-m", "/", "-m", "//"]).mountPatterns == ["/home", "/", "/"])
    }

    @Test func defaults() throws {
        let options = try ListOptions.parse([])
        #expect(options.unit == .iec)
        #expect(options.format == .text)
        #expect(options.timeoutMilliseconds == 5000)
        #expect(options.barWidth == 10)
        #expect(options.severityPolicy == SeverityPolicy(warning: [AlertLimit("80%")!], critical: [AlertLimit("90%")!]))
        let set = try ListOptions.parse(["--warn", "10GB", "--critical", "95%", "--critical", "1GB"])
        #expect(set.severityPolicy == SeverityPolicy(warning: [AlertLimit("10GB")!], critical: [AlertLimit("95%")!, AlertLimit("1GB")!]))
    }

    @Test(arguments: [
        (["--type", "ext4,,xfs"], "invalid value 'ext4,,xfs' for '--type': a filesystem type as mount(8) names it"),
        (["-t", "ext4\u{1B}[2J"], "invalid value 'ext4?[2J' for '-t'"),
        (["--format", "waybar"], "invalid value 'waybar' for '--format': the formats of list are text and json"),
        (["--bar-glyphs", "#"], "invalid value '#' for '--bar-glyphs'"),
        (["--loops=1"], "option '--loops' of 'usedspace list' takes no value"),
        (["--mount"], "option '--mount' of 'usedspace list' needs a value"),
    ])
    func badListOptionsSayWhatIsWrong(_ arguments: [String], _ message: String) {
        do {
            _ = try ListOptions.parse(arguments[...])
            Issue.record("\(arguments) was accepted")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }
}
