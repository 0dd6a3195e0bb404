import Foundation

/// A real sshfs mount whose server can be frozen: an OpenSSH server of its own on a private
/// port of 127.0.0.1 (its own host key, one authorized key, SFTP only), mounted with sshfs
/// (allow_other: the tests' users see it). `freeze()` stops (SIGSTOP) the server's
/// processes: the connection stays up and every call on the mount waits for an answer that
/// does not come, as when a file server hangs; `thaw()` lets them go on. What sshfs shows is
/// `remote`.
///
/// Held under HangingMountExclusion, as a HangingMount is: a frozen mount is every other
/// test's watched filesystem when that test's daemon watches every mount.
final class FrozenSshfsMount {
    let mountPoint: String
    /// The directory the server serves; write here, not through the mount.
    let remote: String
    private let scratch: String
    /// Started with posix_spawn: sshd closes the descriptors it inherits, which Foundation's
    /// Process takes for its exit (SpawnedProcess says what follows).
    private let server: SpawnedProcess
    private let client: SpawnedProcess
    private let exclusion: HangingMountExclusion.Hold
    private var frozen: [pid_t] = []

    static var available: Bool {
        Prerequisite.isRoot && FileManager.default.fileExists(atPath: "/dev/fuse") && Prerequisite.hasCommand("fusermount3")
            && FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd") && FileManager.default.isExecutableFile(atPath: "/usr/bin/sshfs")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/ssh-keygen")
    }

    /// Mounted at a directory of its own, or `at` one made for it (in a user's home, where
    /// users mount sshfs).
    init(at place: String? = nil) throws {
        exclusion = HangingMountExclusion.Hold()
        scratch = try ScratchDirectory.make("sshfs")
        mountPoint = place ?? scratch + "/mnt"
        remote = scratch + "/remote"
        for directory in [mountPoint, remote] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        // sshd's privilege separation directory, which its package makes at boot.
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        chmod("/run/sshd", 0o755)
        try CommandRunner.shell("ssh-keygen -q -t ed25519 -N '' -f \(quoted(scratch + "/host_key")) && ssh-keygen -q -t ed25519 -N '' -f \(quoted(scratch + "/client_key"))"
                                + " && cp \(quoted(scratch + "/client_key.pub")) \(quoted(scratch + "/authorized_keys"))")
        let port = try Self.freePort()
        let config = """
            ListenAddress 127.0.0.1
            Port \(port)
            HostKey \(scratch)/host_key
            AuthorizedKeysFile \(scratch)/authorized_keys
            PidFile none
            UsePAM no
            StrictModes no
            PermitRootLogin prohibit-password
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            AllowUsers root
            Subsystem sftp internal-sftp
            ForceCommand internal-sftp -d \(remote)
            """
        try config.write(toFile: scratch + "/sshd_config", atomically: true, encoding: .utf8)
        server = try SpawnedProcess("/usr/sbin/sshd", ["-D", "-e", "-f", scratch + "/sshd_config"], environment: [:],
                                    logFile: scratch + "/sshd.log")
        let listening = waitUntil(seconds: 10) {
            (readProcFile("/proc/net/tcp") ?? "").contains(String(format: "0100007F:%04X 00000000:0000 0A", port))
        }
        guard listening else { throw HarnessFailure("sshd did not listen on port \(port): \(Self.text(of: scratch + "/sshd.log"))") }
        let options = "IdentityFile=\(scratch)/client_key,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,BatchMode=yes,allow_other,LogLevel=ERROR"
        client = try SpawnedProcess("/usr/bin/sshfs", ["-f", "-p", String(port), "-o", options, "root@127.0.0.1:\(remote)", mountPoint],
                                    environment: ["PATH": "/usr/bin:/bin"], logFile: scratch + "/sshfs.log")
        guard waitUntil(seconds: 15, { (readProcFile("/proc/self/mountinfo") ?? "").contains(" \(self.mountPoint) ") }) else {
            throw HarnessFailure("sshfs did not mount \(remote) at \(mountPoint): \(Self.text(of: scratch + "/sshfs.log"))")
        }
        // Mounted before its connection is up: answering once, it is.
        let answered = try CommandRunner.run("/usr/bin/stat", ["-f", mountPoint], timeout: 15)
        guard answered.status == 0 else { throw HarnessFailure("sshfs at \(mountPoint) does not answer: \(answered.stderr) \(Self.text(of: scratch + "/sshfs.log"))") }
    }

    private static func text(of file: String) -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }

    /// A TCP port of 127.0.0.1 that nothing listens on now.
    private static func freePort() throws -> Int {
        let text = try CommandRunner.shell("python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])'")
        guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw HarnessFailure("no free port: \(text)") }
        return port
    }

    /// The server's processes: the listener and its sessions (the SFTP session serves the mount).
    private var serverProcesses: [pid_t] {
        [server.pid] + ProcessTable.descendants(of: server.pid)
    }

    /// From now on every call on the mount that reaches the server waits (SIGSTOP of the server).
    func freeze() {
        frozen = serverProcesses
        for pid in frozen { kill(pid, SIGSTOP) }
    }

    /// The server answers again.
    func thaw() {
        for pid in frozen { kill(pid, SIGCONT) }
        frozen = []
    }

    deinit {
        thaw()
        _ = try? CommandRunner.run("/usr/bin/fusermount3", ["-u", "-z", mountPoint], timeout: 10)
        // The session's processes end with the listener's connection to them.
        for pid in ProcessTable.descendants(of: server.pid) { kill(pid, SIGTERM) }
        client.stop(seconds: 5)
        server.stop(seconds: 5)
        try? FileManager.default.removeItem(atPath: scratch)
    }
}
