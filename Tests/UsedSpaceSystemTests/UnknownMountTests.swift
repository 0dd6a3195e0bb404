import Glibc
import Testing
import UsedSpaceCore
@testable import UsedSpaceSystem

/// A path whose mount the table does not show (a bare chroot), or whose table cannot be
/// read: statvfs's numbers, the mount unknown, and judged as a mount that may hang.
@Suite struct UnknownMountTests {
    @Test(arguments: [false, true])
    func statvfsAnswersWithoutTheMount(tableReadable: Bool) throws {
        let sample = PathSampler.sample("/tmp") { () throws(FileReadError) -> [MountEntry] in
            guard tableReadable else { throw FileReadError.tooLarge(limit: 0) }
            return []
        }
        guard case .measured(let measurement) = sample else {
            Issue.record("not measured: \(sample)")
            return
        }
        #expect(measurement.mountPoint == nil && measurement.fileSystemType == nil)
        var reference = statvfs()
        #expect(statvfs("/tmp", &reference) == 0)
        #expect(measurement.stats.totalBlocks == UInt64(reference.f_blocks))
        let snapshot = Snapshot(measurement, seq: 1, source: .direct)
        #expect(snapshot.mountUnknown)
    }

    @Test func anUnknownMountMayHang() {
        #expect(MountTable.mayHang("/anything", in: []))
        let root = MountInfoParser.parse("22 1 252:0 / / rw - ext4 /dev/vda rw\n")
        #expect(!MountTable.mayHang("/anything", in: root))
    }
}
