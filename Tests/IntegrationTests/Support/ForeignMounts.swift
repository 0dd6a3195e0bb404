import Foundation
import UsedSpaceCore

/// What else this machine has mounted that may hang: other people's FUSE, network and
/// automount filesystems (a dead sshfs, a stale NFS server). The tests' own mounts live
/// under /tmp/usedspace-… and /mnt/usedspace-…; everything else of those kinds is foreign.
/// The harness leaves these out of the mount namespaces it runs usedspace in (detached
/// lazily, which asks nothing of the filesystem), so that a test checks usedspace and not
/// the host. `.ci/crowd-the-machine` leaves such a mount behind on purpose.
enum ForeignMounts {
    static let ownPrefixes = ["/tmp/usedspace-", "/mnt/usedspace-"]

    /// Mount points, deepest first (a lazy detach of a parent takes its children along, but
    /// the order keeps every detach meaningful). With `includingOwn`, the tests' own too.
    static func current(includingOwn: Bool = false) -> [String] {
        let entries = MountInfoParser.parse(readProcFile("/proc/self/mountinfo") ?? "")
        return entries
            .filter { RealFilesystems.mayHang($0.fileSystemType) && (includingOwn || !ownPrefixes.contains(where: $0.mountPoint.hasPrefix)) }
            .map(\.mountPoint)
            .sorted { $0.count > $1.count }
    }

    /// `command` run in a mount namespace of its own (a slave of this one) without the
    /// foreign mounts: for what reads the whole mount table (`usedspace list`, `--all`).
    /// `alone`: without any mount that may hang, the tests' own included, and private, so
    /// that no mount another suite makes meanwhile (a FUSE mount it hangs) reaches it: for
    /// a command whose output is compared with what the documentation shows.
    static func isolated(_ command: [String], alone: Bool = false) -> [String] {
        let detach = current(includingOwn: alone).map { "umount -l -c -i \(quoted($0)) 2>/dev/null" }
        return ["/usr/bin/unshare", "--mount", "--propagation", alone ? "private" : "slave", "--", "/bin/sh", "-c",
                (detach + ["exec \"$@\""]).joined(separator: "; "), "sh"] + command
    }
}
