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
        (["--after", "12,x"], "invalid value '12,x' for '--after': the seqs of the last answer"),
        (["--after", "12,,7"], "invalid value '12,,7' for '--after'"),
        (["--after", "-1"], "invalid value '-1' for '--after'"),
        (["--after", "9007199254740992"], "invalid value '9007199254740992' for '--after'"),
        (["--after", "3", "--no-daemon"], "--after"),
        (["--after", "3", "-f", "i3blocks", "--signal", "10"], "--after"),
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

/// getopt's habits: combined short options, a value in the same word or the next, `--`.
@Suite struct ShortOptionClusterTests {
    @Test func clustersAndValues() throws {
        let combined = try StatusOptions.parse(["-df", "json", "-p/tmp"])
        #expect(combined.details && combined.format == .json && combined.path == "/tmp")
        let attached = try StatusOptions.parse(["-dfjson"])
        #expect(attached.details && attached.format == .json)
        let watch = try WatchOptions.parse(["-ad", "-fi3bar"])
        #expect(watch.all && watch.expanded && watch.format == .i3bar)
        #expect(throws: UsageError.unknownOption("-z", command: "usedspace status")) { try StatusOptions.parse(["-dz"]) }
        #expect(throws: UsageError.missingValue(option: "-p", command: "usedspace status")) { try StatusOptions.parse(["-dp"]) }
        #expect(throws: UsageError.unexpectedArgument("-d", command: "usedspace status")) { try StatusOptions.parse(["--", "-d"]) }
    }

    /// `--after` takes the seqs of the answer a widget has: one per path, any count, or
    /// none yet; the protocol's largest seq is 2^53 - 1.
    @Test func afterTakesTheSeqsOfTheLastAnswer() throws {
        #expect(try StatusOptions.parse(["--after", "12,7"]).after == [12, 7])
        #expect(try StatusOptions.parse(["--all", "--format", "json", "--after="]).after == [])
        #expect(try StatusOptions.parse(["--after", "9007199254740991"]).after == [9_007_199_254_740_991])
        #expect(try StatusOptions.parse([]).after == nil)
    }

    @Test func statusTakesTheBarOptionsAndChecksThem() throws {
        let options = try StatusOptions.parse(["--format", "polybar", "--warn", "80%", "--template", "{free:iec}", "--unit", "si"])
        #expect(options.bar.settings.map(\.key) == ["warn", "template", "unit"])
        #expect(throws: UsageError.self) { try StatusOptions.parse(["--template", "{nope}"]) }
        #expect(throws: UsageError.self) { try StatusOptions.parse(["--signal", "10"]) }
        #expect(try StatusOptions.parse(["-f", "i3blocks", "--signal", "10"]).signal == 10)
    }

    @Test func theHelpListsEveryOptionOfTheTable() {
        for option in CommandOptions.status { #expect(StatusOptions.help.contains(option.long)) }
        for option in CommandOptions.watch { #expect(WatchOptions.help.contains(option.long)) }
    }
}

@Suite struct OptionTableTests {
    /// The bar options are the [bar] keys, by the same names, in the same order.
    @Test func theBarOptionsAreTheBarKeys() {
        #expect(CommandOptions.bar.map { String($0.long.dropFirst(2)) } == BarOptions.configKeys)
    }
}

/// What a watch's control socket takes: "click N\n" and nothing else.
@Suite struct ClickMessageTests {
    @Test func onlyAClickWithAButtonIsTaken() {
        #expect(ClickMessage.button(in: String(decoding: ClickMessage.encode(button: 3), as: UTF8.self)) == 3)
        for junk in ["", "click", "click \n", "click 0\n", "click 10\n", "click -1\n", "clack 1\n", "click 1x\n",
                     String(repeating: "click 1", count: 40), "\u{0}click 1\n", "click 99999999999999999999\n"] {
            #expect(ClickMessage.button(in: junk) == nil, "\(junk.debugDescription)")
        }
    }

    @Test func buttonsByNameOrNumber() {
        #expect(["left", "middle", "right", "1", "5"].map(ClickCommand.button) == [1, 2, 3, 1, 5])
        #expect(["Left", "0", "6", "", "right-click"].allSatisfy { ClickCommand.button($0) == nil })
    }
}
