import Foundation
import Testing

/// The shipped client's malloc (Sources/CLinux/Allocator.c, its musl build's) under a stress
/// program: four threads allocating, resizing and freeing blocks of random sizes and
/// alignments through every entry point, each block's bytes checked before it is touched
/// again (Tests/Fixtures/allocator-stress.c). Built against the C library here, which it
/// replaces for the whole process, so that the C library's own allocations go through it
/// too. The rest of the suite runs the shipped client itself on it.
@Suite struct AllocatorTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(Prerequisite.enabled(Prerequisite.hasCommand("cc"), "needs a C compiler (cc)"))
    func keepsEveryLiveBlockIntactUnderThreads() throws {
        let directory = try ScratchDirectory("allocator")
        let program = directory.subpath("allocator-stress")
        let build = try CommandRunner.run("/usr/bin/env", [
            "cc", "-O1", "-pthread", "-DUSEDSPACE_ALLOCATOR", "-o", program,
            Self.repository.appendingPathComponent("Sources/CLinux/Allocator.c").path,
            Self.repository.appendingPathComponent("Tests/Fixtures/allocator-stress.c").path,
        ], timeout: 120)
        try #require(build.status == 0, "cc: \(build.stderr)")
        let run = try CommandRunner.run(program, [], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("ok: 4 threads"), "\(run.stdout)")
    }
}
