import Foundation
import Testing

/// desktop/common/format.js, the numbers GNOME Shell and Plasma show, run by gjs (GNOME's
/// JavaScript, the engine GNOME Shell runs it in) through Tests/Fixtures/format-parity.js.
enum DesktopFormatDriver {
    static var available: Bool { Prerequisite.hasCommand("gjs") }
    static let requirement: Comment = "needs gjs (GNOME's JavaScript: the Debian package gjs)"

    /// One call of format.js: the driver's line (`size 1000`, `percent 1 1999`, …) and
    /// what UsedSpaceCore says for it.
    struct Case {
        var call: String
        var expected: String
    }

    /// format.js's answer to each case, in order, from one run of gjs.
    static func answers(_ cases: [Case]) throws -> [String] {
        let scratch = try ScratchDirectory("format-parity")
        let input = scratch.subpath("cases")
        try Data(cases.map(\.call).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: input))
        let driver = DesktopBuild.repository.path + "/Tests/Fixtures/format-parity.js"
        let result = try CommandRunner.run("/usr/bin/env", ["gjs", "-m", driver, input], timeout: 300)
        guard result.status == 0 else { throw HarnessFailure("gjs \(driver): exit \(result.status): \(result.stderr)") }
        var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard lines.count == cases.count else {
            throw HarnessFailure("gjs answered \(lines.count) lines to \(cases.count) cases: \(result.stderr)")
        }
        return lines
    }

    /// Every case where format.js says something else than UsedSpaceCore, as
    /// "size 999500: format.js \"…\", UsedSpaceCore \"…\"".
    static func differences(_ cases: [Case]) throws -> [String] {
        zip(cases, try answers(cases)).compactMap { testCase, answer in
            answer == testCase.expected ? nil : "\(testCase.call): format.js \"\(answer)\", UsedSpaceCore \"\(testCase.expected)\""
        }
    }
}
