import Foundation

/// The home directory the binaries under test use: `$HOME`, as a login session sets it.
/// Foundation's NSHomeDirectory() asks the password database first, which differs when the
/// suite runs with another HOME (a CI user, a sandboxed build).
let userHome: String = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
