import Foundation
import Testing

/// The shipped client's malloc (Sources/CLinux/Allocator.c, its musl build's) under a stress
/// program: four threads allocating, resizing and freeing blocks of random sizes and
/// alignments through every entry point, each block's bytes checked before it is touched
/// again, while the main thread forks and each child allocates (Tests/Fixtures/allocator-stress.c).
/// Built against musl, as the client ships, and against glibc; it replaces the C library's
/// malloc for the whole process, so that the C library's own allocations go through it too.
/// The rest of the suite runs the shipped client itself on it.
@Suite struct AllocatorTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// musl's compiler wrapper (musl-dev), named for this machine's architecture.
    static let muslCompiler: String = {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return machine + "-linux-musl-gcc"
    }()

    static func stress(compiler: String) throws {
        let directory = try ScratchDirectory("allocator")
        let program = directory.subpath("allocator-stress")
        let build = try CommandRunner.run("/usr/bin/env", [
            compiler, "-O1", "-pthread", "-DUSEDSPACE_ALLOCATOR", "-o", program,
            Self.repository.appendingPathComponent("Sources/CLinux/Allocator.c").path,
            Self.repository.appendingPathComponent("Tests/Fixtures/allocator-stress.c").path,
        ], timeout: 120)
        try #require(build.status == 0, "\(compiler): \(build.stderr)")
        let run = try CommandRunner.run(program, [], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("ok: 4 threads"), "\(run.stdout)")
    }

    @Test(Prerequisite.enabled(Prerequisite.hasCommand(AllocatorTests.muslCompiler), "needs musl's compiler wrapper (musl-dev)"))
    func keepsEveryLiveBlockIntactUnderThreadsAndForksWithMusl() throws {
        try Self.stress(compiler: Self.muslCompiler)
    }

    @Test(Prerequisite.enabled(Prerequisite.hasCommand("cc"), "needs a C compiler (cc)"))
    func keepsEveryLiveBlockIntactUnderThreadsAndForksWithGlibc() throws {
        try Self.stress(compiler: "cc")
    }
}
