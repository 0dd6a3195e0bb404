import Glibc

/// The names in a directory (opendir/readdir), without "." and "..".
public enum DirectoryEntries {
    public static func list(_ path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw SystemError.current("opendir") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
