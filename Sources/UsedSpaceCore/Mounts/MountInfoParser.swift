/// Parses `/proc/self/mountinfo` (proc(5)):
///
///     36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue
///
/// Lines that do not have this shape are skipped rather than failing the whole table: the
/// kernel adds optional fields over time and one odd line must not hide every mount.
public enum MountInfoParser {
    public static func parse(_ text: String) -> [MountEntry] {
        var entries: [MountEntry] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if let entry = parseLine(line) { entries.append(entry) }
        }
        return entries
    }

    public static func parseLine(_ line: Substring) -> MountEntry? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        // Optional fields (zero or more) sit between the options and the "-" separator.
        guard fields.count >= 9,
              let separator = fields[6...].firstIndex(of: "-"), separator + 2 < fields.count,
              let mountID = Int(fields[0]), let parentID = Int(fields[1])
        else { return nil }
        let device = fields[2].split(separator: ":", omittingEmptySubsequences: false)
        guard device.count == 2, let major = UInt32(device[0]), let minor = UInt32(device[1]) else { return nil }
        return MountEntry(
            mountID: mountID, parentID: parentID, deviceMajor: major, deviceMinor: minor,
            root: unescape(fields[3]), mountPoint: unescape(fields[4]),
            fileSystemType: unescape(fields[separator + 1]), source: unescape(fields[separator + 2])
        )
    }

    /// Undoes the kernel's octal escapes (`\040` space, `\011` tab, `\012` newline,
    /// `\134` backslash). Anything else is kept as it is.
    public static func unescape(_ field: Substring) -> String {
        let bytes = Array(field.utf8)
        guard bytes.contains(UInt8(ascii: "\\")) else { return String(field) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\"), index + 3 < bytes.count,
               let value = octal(bytes[(index + 1)...(index + 3)]) {
                out.append(value)
                index += 4
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func octal(_ digits: ArraySlice<UInt8>) -> UInt8? {
        guard digits.count == 3 else { return nil }
        var value: UInt32 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(digit) else { return nil }
            value = value * 8 + UInt32(digit - UInt8(ascii: "0"))
        }
        return value <= 0xFF ? UInt8(value) : nil
    }
}
