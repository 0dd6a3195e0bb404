import Foundation
import Testing

/// What an integration test needs from the machine. Where it is missing the test is
/// reported as skipped, with the reason, never as passed. CI sets
/// USEDSPACE_REQUIRE_ALL_TESTS=1 after installing everything, so that there a missing
/// prerequisite fails the test instead of hiding it.
enum Prerequisite {
    static var everythingRequired: Bool { ProcessInfo.processInfo.environment["USEDSPACE_REQUIRE_ALL_TESTS"] == "1" }

    static var isRoot: Bool { getuid() == 0 }

    static func hasCommand(_ name: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }

    /// A trait that runs the test only when `condition` holds (or everything is required).
    static func enabled(_ condition: @autoclosure @escaping @Sendable () -> Bool, _ reason: Comment) -> ConditionTrait {
        .enabled(reason) { everythingRequired || condition() }
    }

    static let root = enabled(isRoot, "needs root (mounts filesystems, switches users)")
}
