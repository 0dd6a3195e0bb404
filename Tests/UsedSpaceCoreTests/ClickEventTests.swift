import Foundation
import Testing
@testable import UsedSpaceCore

/// Golden tests of what a status bar writes to our stdin: Golden/clicks/NAME.input (bytes
/// as the bar sends them) → NAME.expected (the events decoded, one per line).
@Suite struct ClickEventTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/clicks")

    static var caseNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".input") }.map { String($0.dropLast(6)) }.sorted()
    }

    static func describe(_ event: ClickEvent) -> String {
        "button=\(event.button) name=\(event.name ?? "-") instance=\(event.instance ?? "-") modifiers=\(event.modifiers.joined(separator: "+"))"
    }

    /// i3bar sends every block's clicks to the status command: only a block named ours is.
    @Test func onlyClicksOnOurBlockAreOurs() {
        #expect(I3barRenderer.owns(ClickEvent(name: "usedspace", instance: "/home", button: 1)))
        #expect(I3barRenderer.owns(ClickEvent(name: "usedspace", button: 3)))
        #expect(!I3barRenderer.owns(ClickEvent(name: "clock", button: 1)))
        #expect(!I3barRenderer.owns(ClickEvent(name: "tztime", instance: "local", button: 1)))
        #expect(!I3barRenderer.owns(ClickEvent(instance: "/home", button: 1)))
        #expect(!I3barRenderer.owns(ClickEvent(button: 1)))
    }

    @Test func thereAreCases() {
        #expect(Self.caseNames.count >= 8)
    }

    @Test(arguments: caseNames) func decodes(_ name: String) throws {
        let input = try Data(contentsOf: Self.directory.appendingPathComponent(name + ".input"))
        let expected = try String(contentsOf: Self.directory.appendingPathComponent(name + ".expected"), encoding: .utf8)
        var decoder = ClickEventDecoder()
        let events = decoder.feed(Array(input))
        #expect(events.map(Self.describe).map { $0 + "\n" }.joined() == expected)
    }

    /// The same bytes cut anywhere give the same events: reads from a pipe arrive in pieces.
    @Test(arguments: caseNames) func decodesTheSameInAnyChunks(_ name: String) throws {
        let input = Array(try Data(contentsOf: Self.directory.appendingPathComponent(name + ".input")))
        var whole = ClickEventDecoder()
        let expected = whole.feed(input)
        var generator = SplitMix64(seed: UInt64(input.count))
        for _ in 0..<20 {
            var decoder = ClickEventDecoder()
            var events: [ClickEvent] = []
            var index = 0
            while index < input.count {
                let size = Int(generator.next() % 17) + 1
                events += decoder.feed(input[index..<min(index + size, input.count)])
                index += size
            }
            #expect(events == expected)
        }
    }

    @Test func aLineLongerThanTheLimitIsDroppedAndTheNextOneStillCounts() {
        var decoder = ClickEventDecoder()
        let huge = Array(repeating: UInt8(ascii: "x"), count: 10 << 20)
        #expect(decoder.feed(huge).isEmpty)
        #expect(decoder.feed(Array(#"{"button":1}"#.utf8) + [10]).isEmpty, "still the long line")
        #expect(decoder.feed(Array("\n{\"button\":3}\n".utf8)).map(\.button) == [3])
    }
}

@Suite struct ResponseFrameDecoderTests {
    @Test func reassemblesFramesFromAnyChunks() throws {
        let stream = Array("ok 1\n{\"a\":1}\nupdate 2\nx\ny\nerror not-watched /x is not watched\nok 0\n".utf8)
        for size in 1...stream.count {
            var decoder = ResponseFrameDecoder()
            var frames: [ResponseFrameDecoder.Frame] = []
            var index = 0
            while index < stream.count {
                frames += try decoder.feed(stream[index..<min(index + size, stream.count)])
                index += size
            }
            #expect(frames.map(\.header) == [.ok(lines: 1), .update(lines: 2), .error(code: "not-watched", message: "/x is not watched"), .ok(lines: 0)])
            #expect(frames.map(\.lines) == [["{\"a\":1}"], ["x", "y"], [], []])
        }
    }

    @Test func refusesWhatIsNotAFrame() {
        var decoder = ResponseFrameDecoder()
        #expect(throws: ResponseFrameDecoder.Failure.self) { try decoder.feed(Array("hello\n".utf8)) }
        var long = ResponseFrameDecoder()
        #expect(throws: ResponseFrameDecoder.Failure.lineTooLong) { try long.feed(Array(repeating: UInt8(ascii: "o"), count: 2 << 20)) }
    }
}
