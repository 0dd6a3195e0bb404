import Glibc
import Testing
@testable import UsedSpaceSystem

/// The daemon's one socket to the service manager ($NOTIFY_SOCKET): a path, or "@name" in
/// the abstract namespace as systemd may write it.
@Suite struct NotifySocketTests {
    /// A datagram receiver bound at `bytes` (a leading NUL: abstract), and what it got.
    final class Receiver {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        init(bound bytes: [UInt8], abstract: Bool) throws {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
            try #require(bound == 0, "bind: errno \(errno)")
        }
        deinit { close(descriptor) }
        func received() -> String {
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : "(nothing, errno \(errno))"
        }
    }

    @Test func anAbstractAddressIsReached() throws {
        let name = "usedspace-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let receiver = try Receiver(bound: [0] + Array(name.utf8), abstract: true)
        let sender = try UnixDatagram.connect(to: "@" + name)
        try UnixDatagram.send(Array("STATUS=one".utf8), on: sender)
        try UnixDatagram.send(Array("STATUS=two".utf8), on: sender)
        #expect(receiver.received() == "STATUS=one")
        #expect(receiver.received() == "STATUS=two")
    }

    @Test func aPathIsReached() throws {
        let path = "/tmp/usedspace-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(path) }
        let receiver = try Receiver(bound: Array(path.utf8), abstract: false)
        let sender = try UnixDatagram.connect(to: path)
        try UnixDatagram.send(Array("READY=1".utf8), on: sender)
        #expect(receiver.received() == "READY=1")
    }

    /// Only the notify socket's address may be abstract: "@x" elsewhere (`--socket @x`) is
    /// a file named so, as it always was.
    @Test func anAtSignIsAPathWhereAbstractIsNotAllowed() throws {
        let (address, length) = try UnixSocket.address("@x")
        let first = withUnsafeBytes(of: address.sun_path) { $0[0] }
        #expect(first == UInt8(ascii: "@"))
        #expect(length == socklen_t(MemoryLayout<sa_family_t>.size + 3))
    }

    @Test func noReceiverIsAnError() {
        #expect(throws: UnixSocket.Failure.self) { try UnixDatagram.connect(to: "@usedspace-nobody-listens-\(getpid())") }
    }
}
