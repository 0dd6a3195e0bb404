import Testing
@testable import UsedSpaceClient

/// A mistake in the configuration is said once when the client and the daemon read the
/// same file, and each in its own words when they read different ones.
@Suite struct ConfigurationWarningTests {
    let own = "/home/a/.config/usedspace/config:2:1 unknown key 'widht' in [bar]; using the default settings (check it: usedspace config check)"
    let refusal = "/home/a/.config/usedspace/config:2: unknown key 'widht' in [bar]; running with the default settings"

    @Test func theSameFileIsOneLine() {
        let lines = ConfigurationWarning(ownProblem: own, readTheDaemonsFile: true).lines(daemonRefusal: refusal)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("usedspace: " + own) == true)
        #expect(lines.first?.contains("usedspaced refused it too and runs with the default settings") == true)
        #expect(lines.first?.contains("systemctl --user reload usedspace") == true)
    }

    @Test func anotherFileIsTwoLines() {
        let lines = ConfigurationWarning(ownProblem: own, readTheDaemonsFile: false).lines(daemonRefusal: refusal)
        #expect(lines == ["usedspace: " + own,
                          "usedspace: warning: usedspaced refused its configuration: \(refusal) (fix it, check it with 'usedspace config check', then: systemctl --user reload usedspace)"])
    }

    @Test func eachAloneIsItsOwnLine() {
        #expect(ConfigurationWarning(ownProblem: own, readTheDaemonsFile: true).lines(daemonRefusal: nil) == ["usedspace: " + own])
        let daemonOnly = ConfigurationWarning(ownProblem: nil, readTheDaemonsFile: true).lines(daemonRefusal: refusal)
        #expect(daemonOnly.count == 1 && daemonOnly[0].hasPrefix("usedspace: warning: usedspaced refused its configuration: "))
        #expect(ConfigurationWarning(ownProblem: nil, readTheDaemonsFile: true).lines(daemonRefusal: nil).isEmpty)
    }

    /// Control characters a hostile file name could carry are not written raw to a terminal.
    @Test func theRefusalIsPrintable() {
        let lines = ConfigurationWarning(ownProblem: nil, readTheDaemonsFile: false).lines(daemonRefusal: "/tmp/\u{1B}[2Jx:1: bad")
        #expect(lines.first?.contains("\u{1B}") == false)
    }
}
