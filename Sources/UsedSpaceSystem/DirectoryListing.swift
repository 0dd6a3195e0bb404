import Glibc

/// The names in a directory (without "." and "..").
public enum DirectoryListing {
    public static func names(in path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw .current("opendir") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
