import Testing
@testable import UsedSpaceCore

/// Markup's three special characters become entities, and nothing else changes: what a
/// markup reader shows of the result is the text as it was.
@Suite struct MarkupTextTests {
    @Test func escapesWhatMarkupWouldReadAndKeepsTheRest() {
        #expect(MarkupText.escaped("/home/u/Tom & Jerry <1080p>.iso") == "/home/u/Tom &amp; Jerry &lt;1080p&gt;.iso")
        #expect(MarkupText.escaped("&amp;") == "&amp;amp;", "an entity in a name is a name, not an entity")
        #expect(MarkupText.escaped("plain/ü \"quoted\" 'single' é\u{301}") == "plain/ü \"quoted\" 'single' é\u{301}")
        #expect(MarkupText.escaped("") == "")
    }
}
