import Foundation
import Testing

/// A later generation of Debian than this machine's, with usedspace installed from its .deb
/// by apt, as a user of that release installs it: the tests run the desktops and the daemon
/// of that release there (its GNOME Shell, Plasma, systemd, D-Bus), not this machine's.
///
/// The root is made once per machine by Tests/Roots/make-root and used through an overlay,
/// so that nothing a test does stays in it. Programs run in it with nsenter, in a mount
/// namespace that a holder process keeps: the root is its "/" (by pivot_root: in a chroot
/// the user manager could not make the user namespace of the unit's sandbox), with /proc,
/// /sys (cgroup2 at /sys/fs/cgroup, as the release's systemd requires), /dev and a /run of
/// its own. This
/// machine's /tmp, /home, /run/user and journald's sockets are bound in at the same paths,
/// so that the harness's scratch directories, the test users' homes and runtime
/// directories are the same files inside and out, and the journal is this machine's. The
/// namespace is a slave of this machine's: a filesystem a test mounts under /tmp later (a
/// tmpfs to fill, a FUSE mount that hangs) reaches the programs in the root and their
/// services.
final class GenerationRoot {
    enum Release: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case trixie, sid

        var testDescription: String {
            switch self {
            case .trixie: "Debian 13 (GNOME Shell 48, Plasma 6.3)"
            case .sid: "Debian sid (GNOME Shell 51, Plasma 6.7)"
            }
        }
    }

    static var available: Bool {
        Prerequisite.isRoot && DebianPackage.available && ["mmdebstrap", "nsenter", "unshare", "flock"].allSatisfy(Prerequisite.hasCommand)
            && FileManager.default.fileExists(atPath: "/sys/fs/cgroup")
    }
    static let requirement: Comment = "needs root, mmdebstrap and the Debian archive (Tests/Roots/make-root), nsenter, and the package (USEDSPACE_DEB)"

    static let cache = ProcessInfo.processInfo.environment["USEDSPACE_ROOTS"] ?? "/var/cache/usedspace-tests"
    static let makeRoot = DesktopBuild.repository.path + "/Tests/Roots/make-root"

    let release: Release
    private let scratch: ScratchDirectory
    /// Where the root's overlay is mounted, in the holder's namespace only: it goes with it.
    private let merged: String
    private let holder: SpawnedProcess
    /// The users added to the root's passwd so far.
    private let users = Locked<Set<String>>([])

    /// `package: false`: usedspace not installed (a desktop's store install alone).
    init(_ release: Release, package: Bool = true) throws {
        self.release = release
        let made = try CommandRunner.run(Self.makeRoot, [release.rawValue],
                                         environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "USEDSPACE_ROOTS": Self.cache],
                                         timeout: 1800)
        guard made.status == 0 else { throw HarnessFailure("Tests/Roots/make-root \(release.rawValue): \(made.stderr.suffix(3000))") }
        print("\(release.testDescription): \(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        scratch = try ScratchDirectory("root-\(release.rawValue)")
        for part in ["upper", "work", "merged"] {
            try FileManager.default.createDirectory(atPath: scratch.subpath(part), withIntermediateDirectories: true)
        }
        merged = scratch.subpath("merged")
        let overlay = "lowerdir=\(Self.cache)/\(release.rawValue)/root,upperdir=\(scratch.subpath("upper")),workdir=\(scratch.subpath("work"))"
        // The release's systemd runs on cgroup2 only: where this machine has the hybrid
        // layout, its unified hierarchy becomes the root's /sys/fs/cgroup.
        let cgroup = FileManager.default.fileExists(atPath: "/sys/fs/cgroup/cgroup.controllers") ? "" :
            "mount --bind /sys/fs/cgroup/unified \"$root/sys/fs/cgroup\" && "
        let setup = """
            root=$1
            mount -t overlay overlay -o "$2" "$root" && mount --rbind "$root" "$root" && mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
            mount --rbind /sys "$root/sys" && \(cgroup)
            mount -t tmpfs -o mode=755 run "$root/run" &&
            mkdir -p "$root/run/systemd/system" "$root/run/systemd/journal" "$root/run/systemd/mount-rootfs" "$root/run/user" "$root/run/lock" &&
            mount --bind /run/systemd/journal "$root/run/systemd/journal" && mount --rbind /run/user "$root/run/user" &&
            mount --rbind /tmp "$root/tmp" && mount --rbind /home "$root/home" || exit 1
            cd "$root" && mkdir -p .host && pivot_root . .host &&
            exec /bin/sh -c 'umount -l /.host && mount --make-rshared / && echo ready && exec sleep infinity'
            """
        try FileManager.default.createDirectory(atPath: "/run/user", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "/run/systemd/journal", withIntermediateDirectories: true)
        holder = try SpawnedProcess("/usr/bin/unshare", ["--mount", "--propagation", "slave", "/bin/sh", "-c", setup, "sh", merged, overlay],
                                    environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], logFile: scratch.subpath("holder.log"))
        guard waitUntil(seconds: 20, { (try? String(contentsOfFile: self.scratch.subpath("holder.log"), encoding: .utf8))?.contains("ready") == true }) else {
            throw HarnessFailure("the \(release.rawValue) root's namespace: \((try? String(contentsOfFile: scratch.subpath("holder.log"), encoding: .utf8)) ?? "")")
        }
        if package { try installPackage() }
    }

    /// `apt install ./usedspace_….deb`, as the README says: its Depends from the release's
    /// archive (already in the root), its maintainer scripts and triggers run.
    private func installPackage() throws {
        let deb = try DebianPackage.require()
        let copy = scratch.subpath((deb as NSString).lastPathComponent)
        try FileManager.default.copyItem(atPath: deb, toPath: copy)
        chmod(copy, 0o644)
        let result = try run("apt-get install -y -q --no-install-recommends \(quoted(copy))", timeout: 300)
        guard result.status == 0 else { throw HarnessFailure("apt install in \(release.rawValue): \(result.stdout.suffix(2000))\(result.stderr.suffix(2000))") }
    }

    /// `command` run in the root (as root, or as whoever `command` makes itself).
    func command(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        ("/usr/bin/nsenter", ["-t", String(holder.pid), "-m", "-r", "-w", "--", executable] + arguments)
    }

    /// A shell script run in the root as root, with a plain environment.
    func run(_ script: String, timeout: TimeInterval = 60) throws -> CommandResult {
        let inside = command("/bin/sh", ["-c", script])
        return try CommandRunner.run(inside.executable, inside.arguments,
                                     environment: ["PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8",
                                                   "DEBIAN_FRONTEND": "noninteractive"], timeout: timeout)
    }

    @discardableResult
    func shell(_ script: String, timeout: TimeInterval = 60) throws -> String {
        let result = try run(script, timeout: timeout)
        guard result.status == 0 else { throw ShellFailure(command: "(in the \(release.rawValue) root) " + script, result: result) }
        return result.stdout
    }

    /// Gives one of this machine's test users an entry in the root's passwd and group, with
    /// the same ids and home: the files it owns here are its own there.
    func addUser(_ name: String) throws {
        try users.update { users in
            guard !users.contains(name) else { return }
            guard let entry = getpwnam(name) else { throw HarnessFailure("no user \(name) here") }
            let (uid, gid, home) = (entry.pointee.pw_uid, entry.pointee.pw_gid, String(cString: entry.pointee.pw_dir))
            try shell("getent group \(gid) >/dev/null || groupadd -g \(gid) \(quoted(name)); getent passwd \(quoted(name)) >/dev/null || "
                      + "useradd -u \(uid) -g \(gid) -M -d \(quoted(home)) -s /bin/sh \(quoted(name))")
            users.insert(name)
        }
    }

    /// The release's version of a package in the root ("48.7-0+deb13u2").
    func packageVersion(_ package: String) throws -> String {
        try shell("dpkg-query -W -f '${Version}' \(quoted(package))")
    }

    deinit {
        holder.stop(seconds: 5)
    }
}
