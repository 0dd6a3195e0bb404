import Glibc
import Testing
@testable import UsedSpaceSystem

/// The real-time signal i3blocks' `signal=N` means is SIGRTMIN+N in i3blocks' libc, the
/// system's glibc, whatever libc the client itself is linked against (the shipped one, musl,
/// counts from 35). This test process is a glibc program: its SIGRTMIN is the bar's.
@Suite struct BarProcessTests {
    @Test func countsRealTimeSignalsAsGlibcDoes() {
        #expect(BarProcess.barRealTimeSignalBase == __libc_current_sigrtmin())
    }
}
