import UsedSpaceCore
import UsedSpaceSystem

/// A `watch`'s control socket, where `usedspace click` sends the clicks a bar gives to a
/// command rather than to the block (polybar's click-left, waybar's on-click): it reaches
/// exactly this block, and no signal reaches any other process.
final class BlockControl {
    /// `$XDG_RUNTIME_DIR/usedspace/blocks`, private to the user.
    static var directory: String? {
        ProcessEnvironment.runtimeDirectory.map { $0 + "/usedspace/blocks" }
    }

    let path: String
    private let socket: FileDescriptor

    /// nil when there is no runtime directory, or the socket cannot be made: the block
    /// then still shows, and only `usedspace click` cannot reach it.
    init?(endpoint: BlockEndpoint) {
        guard let directory = Self.directory, Self.makeDirectory(directory) else { return nil }
        path = directory + "/" + endpoint.fileName
        Self.removeStale(in: directory)
        _ = unlinkFile(path)
        guard let bound = try? UnixDatagram.bind(at: path) else { return nil }
        socket = bound
    }

    deinit {
        _ = unlinkFile(path)
    }

    var descriptor: Int32 { socket.rawValue }

    /// The buttons clicked since the last call (1 left, 2 middle, 3 right…).
    func takeButtons() -> [Int] {
        UnixDatagram.receiveAll(socket.rawValue).compactMap { message in
            ClickMessage.button(in: String(decoding: message, as: UTF8.self))
        }
    }

    /// A watch killed by its bar (SIGTERM, SIGKILL) leaves its socket behind: those of
    /// processes that are gone are removed, here and by `usedspace click`.
    static func removeStale(in directory: String) {
        for file in DirectoryListing.names(in: directory) {
            if let endpoint = BlockEndpoint(fileName: file), !ProcessTree.exists(endpoint.pid) { _ = unlinkFile(directory + "/" + file) }
        }
    }

    /// `…/usedspace/blocks`, mode 0700 (the runtime directory is the user's own tmpfs).
    static func makeDirectory(_ directory: String) -> Bool {
        (try? AtomicFile.makeDirectories(directory, mode: 0o700)) != nil
    }
}

/// "click BUTTON\n": the one message a control socket takes.
enum ClickMessage {
    static func encode(button: Int) -> [UInt8] { Array("click \(button)\n".utf8) }

    static func button(in text: String) -> Int? {
        guard text.hasPrefix("click "), let button = Int(text.dropFirst(6).prefix { $0 != "\n" }), (1...9).contains(button) else { return nil }
        return button
    }
}
