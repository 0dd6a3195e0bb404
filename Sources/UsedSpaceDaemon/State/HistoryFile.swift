import UsedSpaceCore

/// The history file: the usage history of every watched path, for the time-to-full
/// estimate to survive restarts. A header line, then one line per path:
///
///     usedspace-history 1
///     /home/u<TAB>{"version":1,"points":[[t,a],...]}
///
/// (paths percent-encoded, so a tab or newline in one cannot break the line).
enum HistoryFile {
    static let header = "usedspace-history 1"
    static let maximumSize = 8 << 20

    static func encode(_ histories: [String: UsageHistory]) -> String {
        ([header] + histories.sorted { $0.key < $1.key }.map { PercentEncoding.encode($0.key) + "\t" + $0.value.encode() })
            .joined(separator: "\n") + "\n"
    }

    /// The histories that read; the problems of the lines that did not.
    static func decode(_ text: String) -> (histories: [String: UsageHistory], problems: [String]) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.first.map(String.init) == header else { return ([:], ["not a usedspace history file"]) }
        lines.removeFirst()
        var histories: [String: UsageHistory] = [:]
        var problems: [String] = []
        for (index, line) in lines.prefix(256).enumerated() {
            guard let tab = line.firstIndex(of: "\t"), let path = PercentEncoding.decode(String(line[..<tab])), path.hasPrefix("/") else {
                problems.append("line \(index + 2): no path")
                continue
            }
            do {
                histories[path] = try UsageHistory(decoding: String(line[line.index(after: tab)...]))
            } catch {
                problems.append("line \(index + 2): \(error)")
            }
        }
        return (histories, problems)
    }
}
