import Glibc

/// What every variant does after parsing its command line: `statvfs` one path and print one
/// line, the used percentage counted as df counts it. Only Glibc.
public enum StatProbe {
    public static func home() -> String {
        if let raw = getenv("HOME"), raw.pointee != 0 { return String(cString: raw) }
        return "/"
    }

    public static func report(path: String, details: Bool, json: Bool) -> Int32 {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else {
            let message = "variant: statvfs \(path): errno \(errno)\n"
            _ = message.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
            return 1
        }
        let size = UInt64(stats.f_frsize)
        let total = UInt64(stats.f_blocks) * size
        let free = UInt64(stats.f_bfree) * size
        let available = UInt64(stats.f_bavail) * size
        let used = total - free
        let usable = used + available
        let percent = usable == 0 ? 0 : (used * 100 + usable - 1) / usable
        if json {
            print("{\"path\":\"\(path)\",\"used_bytes\":\(used),\"free_bytes\":\(available),\"used_percent\":\(percent)}")
        } else if details {
            print("\(path): \(percent)% used, \(used) used, \(available) free, \(total) total")
        } else {
            print("\(path): \(percent)% used")
        }
        return 0
    }
}
