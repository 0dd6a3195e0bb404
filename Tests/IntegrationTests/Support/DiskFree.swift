import Foundation

/// What coreutils df(1) says about a path: the oracle our numbers must equal.
struct DiskFree: Equatable {
    var sizeBytes: UInt64
    var usedBytes: UInt64
    var availableBytes: UInt64
    var percent: Int
    var type: String
    var target: String

    static func of(_ path: String) throws -> DiskFree {
        // The target goes last so that a mount point with spaces stays whole.
        try parse(try CommandRunner.shell("df -B1 --output=\(outputColumns) \(quoted(path)) | tail -n +2"), of: path)
    }

    /// df's --output for `parse`.
    static let outputColumns = "size,used,avail,pcent,fstype,target"

    /// df -B1 --output=`outputColumns`'s line of `path`, its heading left out.
    static func parse(_ output: String, of path: String) throws -> DiskFree {
        let line = output.trimmingCharacters(in: .newlines)
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count == 6, let size = UInt64(fields[0]), let used = UInt64(fields[1]),
              let available = UInt64(fields[2]), let percent = Int(fields[3].dropLast())
        else { throw ShellFailure(command: "df \(path)", result: CommandResult(status: 0, stdout: line, stderr: "unexpected output")) }
        return DiskFree(sizeBytes: size, usedBytes: used, availableBytes: available, percent: percent,
                        type: String(fields[4]), target: String(fields[5]))
    }
}
