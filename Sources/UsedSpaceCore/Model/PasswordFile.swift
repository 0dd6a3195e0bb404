/// Reads passwd(5) lines: `name:password:uid:gid:gecos:home:shell`.
public enum PasswordFile {
    /// The home directory of the first entry with `uid`, or nil.
    public static func homeDirectory(of uid: UInt32, in text: String) -> String? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 7, UInt32(fields[2]) == uid else { continue }
            let home = String(fields[5])
            return home.isEmpty ? nil : home
        }
        return nil
    }
}
