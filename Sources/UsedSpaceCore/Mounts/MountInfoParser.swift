/// Parses `/proc/self/mountinfo` (proc(5)):
///
///     36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue
///
/// The last field holds the superblock's options: the filesystem's own read-only state.
/// Lines that do not have this shape are skipped rather than failing the whole table: the
/// kernel adds optional fields over time and one odd line must not hide every mount.
/// It works on bytes: this runs at every one-shot `status`, and splitting Swift Strings by
/// Character was most of the client's start-up (docs/PERFORMANCE.md).
public enum MountInfoParser {
    public static func parse(_ text: String) -> [MountEntry] {
        parse(bytes: Array(text.utf8))
    }

    public static func parse(bytes: [UInt8]) -> [MountEntry] {
        var entries: [MountEntry] = []
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if let entry = parseLine(line) { entries.append(entry) }
        }
        return entries
    }

    public static func parseLine(_ line: Substring) -> MountEntry? {
        parseLine(Array(line.utf8)[...])
    }

    static func parseLine(_ line: ArraySlice<UInt8>) -> MountEntry? {
        let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        // Optional fields (zero or more) sit between the options and the "-" separator.
        guard fields.count >= 9,
              let separator = fields[6...].firstIndex(where: { $0.count == 1 && $0.first == UInt8(ascii: "-") }),
              separator + 2 < fields.count,
              let mountID = number(fields[0]), let parentID = number(fields[1])
        else { return nil }
        let device = fields[2].split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard device.count == 2, let major = number(device[0]), let minor = number(device[1]),
              major <= UInt32.max, minor <= UInt32.max
        else { return nil }
        return MountEntry(
            mountID: Int(mountID), parentID: Int(parentID), deviceMajor: UInt32(major), deviceMinor: UInt32(minor),
            root: unescape(fields[3]), mountPoint: unescape(fields[4]),
            fileSystemType: unescape(fields[separator + 1]), source: unescape(fields[separator + 2]),
            readOnly: separator + 3 < fields.count && hasReadOnlyOption(fields[separator + 3])
        )
    }

    /// Whether a comma-separated option list has `ro`.
    static func hasReadOnlyOption(_ options: ArraySlice<UInt8>) -> Bool {
        options.split(separator: UInt8(ascii: ",")).contains { $0.elementsEqual([UInt8(ascii: "r"), UInt8(ascii: "o")]) }
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + UInt64(digit - UInt8(ascii: "0"))
        }
        return value
    }

    /// Undoes the kernel's octal escapes (`\040` space, `\011` tab, `\012` newline,
    /// `\134` backslash). Anything else is kept as it is.
    public static func unescape(_ field: Substring) -> String {
        unescape(Array(field.utf8)[...])
    }

    static func unescape(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.contains(UInt8(ascii: "\\")) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "\\"), index + 3 < bytes.endIndex,
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
