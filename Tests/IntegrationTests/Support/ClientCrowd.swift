import Foundation

/// Thousands of connections to a daemon's socket, held by a child process (python3, as the
/// daemon's user): the test process keeps its descriptor numbers low, as Foundation's
/// Process needs (with 2,000 sockets open in the test process, a concurrent test's
/// `Process.run()` crashed in memcpy).
final class ClientCrowd {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    /// The connections whose first line in 50 ms was the limit's refusal, and the others.
    let refused: Int
    let accepted: Int

    init(socket path: String, connections: Int, as user: (uid: uid_t, gid: gid_t)) throws {
        let script = """
            import select, socket, sys
            clients = []
            for _ in range(int(sys.argv[2])):
                client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                client.connect(sys.argv[1])
                clients.append(client)
            refused = 0
            for client in clients:
                poller = select.poll()
                poller.register(client, select.POLLIN)
                if poller.poll(50) and client.recv(200).startswith(sys.argv[3].encode()):
                    refused += 1
            print(refused, len(clients) - refused, flush=True)
            keep = int(sys.argv[4])
            for client in clients[keep:]:
                client.close()
            print("left", flush=True)
            sys.stdin.read()
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "/usr/bin/python3", "-c", script, path,
                             String(connections), "error busy too many connections", "500"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let counts = (Self.line(from: output.fileHandleForReading) ?? "").split(separator: " ").compactMap { Int($0) }
        refused = counts.first ?? -1
        accepted = counts.count == 2 ? counts[1] : -1
    }

    /// Closes all but 500 of the connections; returns when they are closed.
    func leaveFiveHundred() -> Bool {
        Self.line(from: output.fileHandleForReading) == "left"
    }

    private static func line(from handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while let byte = try? handle.read(upToCount: 1), let first = byte.first {
            if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(first)
        }
        return nil
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
