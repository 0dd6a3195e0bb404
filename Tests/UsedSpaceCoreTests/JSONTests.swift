import Foundation
import Testing
@testable import UsedSpaceCore

@Suite struct JSONParserTests {
    @Test func parsesValues() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2.5e3, true, false, null], "b": "x\u00e9\n\ud83d\ude00", "c": {}} "#)
        #expect(value["a"] == .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null]))
        #expect(value["b"]?.stringValue == "xé\n😀")
        #expect(value["c"] == .object([:]))
        #expect(try JSONParser.parse("18446744073709551615").uint64Value == UInt64.max)
    }

    @Test(arguments: [
        "", "{", "}", "[1,]", "{\"a\":1,}", "{'a':1}", "01", "1.", "-", "1e", "+1", "NaN", "tru", "nul",
        "\"unterminated", "\"bad \\x escape\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\u12G4\"", "[1] [2]", "{\"a\" 1}",
        "\"tab\there\"", "{\"a\":1}}",
    ])
    func rejectsMalformedJSON(_ text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22], [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22]] {
            #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(bytes) }
        }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0x00, 0x22]) }
    }

    @Test func boundsNesting() throws {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(deep) }
        let allowed = String(repeating: "[", count: 31) + String(repeating: "]", count: 31)
        _ = try JSONParser.parse(allowed)
    }

    @Test func failuresSayWhere() {
        #expect(throws: JSONParser.Failure(offset: 7, reason: "expected ',' or '}'")) { try JSONParser.parse(#"{"a":1 "b":2}"#) }
    }
}

@Suite struct JSONWriterTests {
    /// Whatever a path contains, the line stays one valid JSON line that decodes back to it.
    @Test func escapedStringsDecodeBackWithFoundation() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let scalars = (0..<Int(generator.next() % 24)).compactMap { _ -> Unicode.Scalar? in
                let pick = generator.next() % 4
                let value: UInt64 = pick == 0 ? generator.next() % 0x80 : pick == 1 ? generator.next() % 0x20 : generator.next() % 0x11_0000
                return Unicode.Scalar(UInt32(value))
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            var writer = JSONObjectWriter()
            writer.add("s", text)
            let line = writer.finish()
            #expect(!line.contains("\n"))
            let decoded = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
            #expect(decoded?["s"] == text)
            #expect(try JSONParser.parse(line)["s"]?.stringValue == text)
        }
    }

    @Test func nonFiniteNumbersBecomeNull() {
        var writer = JSONObjectWriter()
        writer.add("a", Double.nan)
        writer.add("b", Double.infinity)
        writer.add("c", 0.5)
        #expect(writer.finish() == #"{"a":null,"b":null,"c":0.5}"#)
    }
}

@Suite struct SnapshotCodecTests {
    static let valid = #"{"version":1,"path":"/h","mountpoint":"/","fstype":"ext4","block_size":4096,"total_blocks":10,"free_blocks":5,"available_blocks":4,"total_inodes":0,"free_inodes":0,"state":"fresh","seq":3,"sampled_at":"2026-11-21T00:00:00Z","error":null}"#

    @Test func theLargestSequenceNumberIsTaken() throws {
        let largest = try SnapshotCodec.decode(Self.valid.replacingOccurrences(of: #""seq":3"#, with: #""seq":9007199254740991"#), source: .daemon)
        #expect(largest.seq == SnapshotCodec.maximumSequenceNumber)
    }

    @Test func decodesTheValidForm() throws {
        let snapshot = try SnapshotCodec.decode(Self.valid, source: .daemon)
        #expect(snapshot.stats?.usedBlocks == 5)
        #expect(snapshot.seq == 3)
    }

    @Test(arguments: [
        ("", "invalid JSON"),
        ("[]", "not a JSON object"),
        (#"{"version":2}"#, "unsupported format version 2"),
        (#"{"path":"/h"}"#, "'version' is missing"),
        (valid.replacingOccurrences(of: #""path":"/h""#, with: #""path":"relative""#), "not an absolute path"),
        (valid.replacingOccurrences(of: #""seq":3"#, with: #""seq":-3"#), "'seq' is not a non-negative integer"),
        (valid.replacingOccurrences(of: #""seq":3"#, with: #""seq":18446744073709551615"#), "'seq' is above 2^53 - 1"),
        (valid.replacingOccurrences(of: #""seq":3"#, with: #""seq":9007199254740992"#), "'seq' is above 2^53 - 1"),
        (valid.replacingOccurrences(of: #""state":"fresh""#, with: #""state":"happy""#), "'state' is not fresh"),
        (valid.replacingOccurrences(of: "2026-11-21T00:00:00Z", with: "yesterday"), "'sampled_at' is not an RFC 3339"),
        (valid.replacingOccurrences(of: #""free_blocks":5"#, with: #""free_blocks":50"#), "do not describe a filesystem"),
        (valid.replacingOccurrences(of: #""block_size":4096"#, with: #""block_size":0"#), "do not describe a filesystem"),
        (valid.replacingOccurrences(of: #""total_blocks":10"#, with: #""total_blocks":1e3"#), "'total_blocks' is not a non-negative integer"),
        (valid.replacingOccurrences(of: #""total_blocks":10,"#, with: ""), "'total_blocks' is missing"),
    ])
    func rejectsWithAReason(_ input: String, _ reason: String) {
        do {
            _ = try SnapshotCodec.decode(input, source: .daemon)
            Issue.record("accepted \(input)")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }
}
