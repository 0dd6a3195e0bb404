import Glibc
import Testing
@testable import UsedSpaceSystem

/// Canonical paths as realpath(3) gives them, through an O_PATH descriptor's name in /proc.
@Suite struct PathResolverTests {
    /// A scratch directory, removed with what is in it.
    final class Scratch {
        let path: String
        init() throws {
            var template = Array("/tmp/usedspace-resolve-XXXXXX".utf8CString)
            path = try #require(mkdtemp(&template).map { String(cString: $0) })
        }
        deinit { _ = system("rm -rf '\(path)'") }
    }

    static func realpathOf(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    @Test func linksAndDotsResolveAsRealpathResolvesThem() throws {
        let scratch = try Scratch()
        mkdir(scratch.path + "/a", 0o755)
        mkdir(scratch.path + "/a/b", 0o755)
        symlink("a/b", scratch.path + "/link")
        symlink(scratch.path + "/link", scratch.path + "/absolute")
        for path in ["/link", "/absolute", "/a/./b/../b", "/link/..", "//a//b/"].map({ scratch.path + $0 }) {
            #expect(try PathResolver.canonical(path) == Self.realpathOf(path), "\(path)")
        }
        #expect(try PathResolver.canonical(scratch.path + "/absolute") == (Self.realpathOf(scratch.path) ?? "") + "/a/b")
    }

    /// The kernel marks a deleted directory's name " (deleted)": a directory really named so
    /// is still itself.
    @Test func aDirectoryNamedLikeADeletedOneIsItself() throws {
        let scratch = try Scratch()
        let named = scratch.path + "/x (deleted)"
        mkdir(named, 0o755)
        #expect(try PathResolver.canonical(named) == Self.realpathOf(named))
    }

    @Test func aMissingPathIsAnError() throws {
        let scratch = try Scratch()
        #expect(throws: SystemError.self) { try PathResolver.canonical(scratch.path + "/missing/x") }
        symlink("nowhere", scratch.path + "/dangling")
        #expect(throws: SystemError.self) { try PathResolver.canonical(scratch.path + "/dangling") }
    }
}
