/// Finding and replacing a string in a string, byte for byte over UTF-8. The standard
/// library's own (`contains`, `split` and `replacing` with a String) belong to the regex
/// engine, _StringProcessing, which Embedded Swift does not have and which is much code to
/// page in for a short string.
public enum TextSearch {
    /// Whether `text` contains `part` (the empty string is in every text).
    public static func contains(_ text: String, _ part: String) -> Bool {
        firstOffset(of: Array(part.utf8), in: Array(text.utf8), from: 0) != nil
    }

    /// `text` with every occurrence of `part` (not empty) replaced, left to right.
    public static func replacing(_ part: String, with replacement: String, in text: String) -> String {
        let haystack = Array(text.utf8), needle = Array(part.utf8)
        guard !needle.isEmpty, var match = firstOffset(of: needle, in: haystack, from: 0) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(haystack.count)
        var start = 0
        while true {
            out.append(contentsOf: haystack[start..<match])
            out.append(contentsOf: replacement.utf8)
            start = match + needle.count
            guard let next = firstOffset(of: needle, in: haystack, from: start) else { break }
            match = next
        }
        out.append(contentsOf: haystack[start...])
        return String(decoding: out, as: UTF8.self)
    }

    static func firstOffset(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty else { return start }
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for offset in start...(haystack.count - needle.count)
        where haystack[offset] == needle[0] && haystack[offset..<(offset + needle.count)].elementsEqual(needle) {
            return offset
        }
        return nil
    }
}
