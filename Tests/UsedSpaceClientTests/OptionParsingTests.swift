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
        (["--timeout", "0"], "invalid value '0' for '--timeout': must be from 100 ms to 600 s"),
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
        var configuration = Configuration()
        configuration.bar.severity.warning = [.usedAtLeast(Fraction(numerator: 1, denominator: 2))]
        let bar = BarProfiles(configuration: configuration, commandLine: options.bar.pairs, home: nil).base
        #expect(bar.severity.warning.map(\.description) == ["80.0% used"], "the command line's limits replace the file's")
        #expect(bar.severity.critical.map(\.description) == ["5 GB free"])
        #expect(throws: UsageError.self) { try WatchOptions.parse(["--warn", "lots"]) }
    }
}
