import Foundation

/// What `usedspace status` says, as the user runs it against the daemon: what a desktop's
/// view is compared with.
enum ClientSays {
    /// What the client says of `path`, through the daemon: `template`'s text.
    static func status(_ daemon: UserServiceDaemon, _ path: String, _ template: String) throws -> String {
        let result = try daemon.usedspace(["status", "--path", path, "--template", template])
        guard result.status == 0 else { throw HarnessFailure("usedspace status: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .newlines)
    }

    /// The Used, Free and Total lines of `usedspace status --details`, as [label, value].
    static func details(_ daemon: UserServiceDaemon, _ path: String) throws -> [[String]] {
        let result = try daemon.usedspace(["status", "--path", path, "--details"])
        var lines: [[String]] = []
        for line in result.stdout.split(separator: "\n") {
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 2, ["Used:", "Free:", "Total:"].contains(fields[0]) else { continue }
            lines.append([String(fields[0].dropLast()), fields[1]])
        }
        return lines
    }

    /// Whether `texts` has `label` followed by `value`.
    static func shows(_ texts: [String], _ label: String, _ value: String) -> Bool {
        zip(texts, texts.dropFirst()).contains { $0 == label && $1 == value }
    }
}
