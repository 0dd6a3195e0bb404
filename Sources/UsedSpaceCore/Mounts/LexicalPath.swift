/// Paths made absolute and normalised without asking the filesystem (no symlinks
/// followed): enough to tell which mount a path is under before touching it.
public enum LexicalPath {
    /// On bytes, not Characters: a path is bytes to the kernel, and Character-level String
    /// work is a large part of the standard library for the daemon to page in.
    public static func normalize(_ path: String, currentDirectory: String) -> String {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var bytes = Array(path.utf8)
        if bytes.first != slash { bytes = Array(currentDirectory.utf8) + [slash] + bytes }
        var components: [ArraySlice<UInt8>] = []
        for component in bytes.split(separator: slash, omittingEmptySubsequences: true) {
            if component.elementsEqual([dot]) { continue }
            if component.elementsEqual([dot, dot]) {
                if !components.isEmpty { components.removeLast() }
                continue
            }
            components.append(component)
        }
        var normalized: [UInt8] = []
        for component in components {
            normalized.append(slash)
            normalized += component
        }
        return normalized.isEmpty ? "/" : String(decoding: normalized, as: UTF8.self)
    }
}
