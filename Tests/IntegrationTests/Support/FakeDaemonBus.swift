import Foundation

/// A stand-in for the daemon on a session bus (Tests/Fixtures/fake-usedspace-bus.py), for
/// the one thing the real daemon never does: send a malformed reply. Every property is given
/// with its D-Bus type, so that a test can send one of the wrong type, leave one out, or
/// name an unknown state; `publish` sends the differences as the daemon would.
final class FakeDaemonBus {
    typealias Properties = [String: (type: String, value: Any)]

    static let objectPrefix = "/io/github/usedspace/UsedSpace1/filesystem/"

    private let specFile: String
    private let process: SpawnedProcess

    /// Owns the daemon's name on `manager`'s session bus, as its user, serving `objects`.
    init(session manager: SystemdUserManager, scratch: ScratchDirectory, objects: [String: Properties]) throws {
        specFile = scratch.subpath("fake-daemon.json")
        try Self.write(objects, to: specFile)
        process = try SessionBusStandIn.start("fake-usedspace-bus.py", [specFile], owning: "io.github.usedspace.UsedSpace1",
                                              session: manager, log: scratch.subpath("fake-daemon.log"))
    }

    private static func write(_ objects: [String: Properties], to specFile: String) throws {
        let json = objects.mapValues { properties in properties.mapValues { [$0.type, $0.value] } }
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: specFile), options: .atomic)
        chmod(specFile, 0o644)
    }

    /// Serves `objects` from now on, announced as changes (a property left out of an object
    /// that stays is not announced: the daemon never drops one; remove the object first).
    /// Wait for what a publish shows before the next: two quick ones may be read as one.
    func publish(_ objects: [String: Properties]) throws {
        try Self.write(objects, to: specFile)
        kill(process.pid, SIGUSR1)
    }

    /// The object path of a watched path, escaped as systemd escapes bus paths.
    static func objectPath(_ path: String) -> String {
        objectPrefix + path.utf8.map { byte -> String in
            let character = Character(Unicode.Scalar(byte))
            return (character.isASCII && (character.isLetter || character.isNumber)) ? String(character) : String(format: "_%02x", byte)
        }.joined()
    }

    /// Every property of a well-formed filesystem object, as the daemon sends it.
    static func filesystem(path: String, used: UInt64, free: UInt64, severity: String = "normal", state: String = "fresh") -> Properties {
        // The arithmetic first, typed: inside the literal, Swift 6.0.3's type checker gives up
        // ("unable to type-check this expression in reasonable time").
        let total: UInt64 = used + free
        let rate: Double = Double(used) / Double(total)
        let percent: Int = Int((used * 100 + total - 1) / total)
        return [
            "Path": ("s", path), "MountPoint": ("s", path), "Type": ("s", "ext4"), "Label": ("s", ""),
            "UsedRate": ("d", rate), "UsedPercent": ("i", percent),
            "UsedBytes": ("t", used), "FreeBytes": ("t", free), "TotalBytes": ("t", total), "ReservedBytes": ("t", 0),
            "ReadOnly": ("b", false), "State": ("s", state), "Severity": ("s", severity), "Error": ("s", ""),
            "TimeToFull": ("s", ""), "TimeToFullLowerSeconds": ("x", -1), "TimeToFullUpperSeconds": ("x", -1),
            "FastFillBytesPerSecond": ("t", UInt64(0)), "FastFillSecondsToFull": ("x", -1), "FastFillWriting": ("s", ""),
            "BtrfsUnallocatedBytes": ("t", 0), "BtrfsMetadata": ("s", ""),
            "QuotaKind": ("s", ""), "QuotaUsedBytes": ("t", UInt64(0)), "QuotaLimitBytes": ("t", UInt64(0)), "Seq": ("t", 1), "SampledAt": ("x", 1_764_000_000),
        ]
    }

    deinit { process.stop(seconds: 5) }
}
