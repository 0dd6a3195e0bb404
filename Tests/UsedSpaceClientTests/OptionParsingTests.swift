import Testing
@testable import UsedSpaceClient
@testable import UsedSpaceCore

/// The command line, parsed without running anything.
@Suite struct OptionParsingTests {
    @Test func statusOptions() throws {
        let options = try StatusOptions.parse(["-p", "/tmp", "--details", "--format=json", "--timeout", "2s"])
        #expect(options.path == "/tmp")
        #expect(options.details)
        #expect(options.format == .json)
        #expect(options.timeoutMilliseconds == 2000)
    }

    @Test func doubleDashEndsTheOptions() {
        #expect(throws: UsageError.unexpectedArgument("--details", command: "usedspace status")) {
            try StatusOptions.parse(["--", "--details"])
        }
    }

    @Test(arguments: [
        (["--format", "xml"], "invalid value 'xml' for '--format'"),
        (["--path"], "option '--path' of 'usedspace status' needs a value"),
        (["--details=yes"], "option '--details' of 'usedspace status' takes no value"),
        (["--timeout", "0"], "invalid value '0' for '--timeout': must be from 100 ms to 10 min"),
        (["--timeout", "soon"], "not a duration such as 5s, 500ms or 2min"),
        (["--bogus"], "unknown option '--bogus' for 'usedspace status'"),
    ])
    func badStatusOptionsSayWhatIsWrong(_ arguments: [String], _ message: String) {
        do {
            _ = try StatusOptions.parse(ArraySlice(arguments))
            Issue.record("accepted \(arguments)")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test func watchBarOptionsAreCheckedWhenParsed() throws {
        let options = try WatchOptions.parse(["--warn", "80%", "--critical", "5GB", "--format", "waybar"])
        var base = BarOptions()
        base.severity.warning = []
        let bar = options.barOptions(base: base)
        #expect(bar.severity.warning.map(\.description) == ["80.0% used"])
        #expect(throws: UsageError.self) { try WatchOptions.parse(["--warn", "lots"]) }
    }
}
