import Foundation

/// A bare chroot, as a build root or a rescue shell is: a directory of a tmpfs (not a mount
/// point), holding only the programs a test runs there and the libraries they load. Each
/// run is in a mount namespace of its own (unshare --mount), with /proc mounted inside or
/// not: inside, the mount table shows no mount for `/` (the tmpfs's mount point lies
/// outside the root, so the kernel leaves it out), or cannot be read at all.
final class BareChroot {
    let root: String
    /// The tmpfs that holds the root, from outside: what statvfs of `/` inside measures.
    let filesystem: String
    private let scratch: ScratchDirectory

    static var available: Bool {
        Prerequisite.isRoot && Prerequisite.hasCommand("unshare") && FileManager.default.isExecutableFile(atPath: "/usr/sbin/chroot")
            && Prerequisite.hasCommand("ldd")
    }

    /// Whether `program` is statically linked (the shipped client is): it runs without /proc.
    static func isStatic(_ program: String) -> Bool {
        (try? CommandRunner.run("/usr/bin/ldd", [program]))?.stdout.contains("not a dynamic executable") == true
            || (try? CommandRunner.run("/usr/bin/ldd", [program]))?.stderr.contains("not a dynamic executable") == true
    }

    /// `programs`: absolute paths, copied to the root's /bin under their own names.
    init(programs: [String]) throws {
        scratch = try ScratchDirectory("chroot")
        filesystem = try scratch.mountTmpfs(at: "fs", options: "size=64m,mode=0755")
        root = filesystem + "/root"
        for directory in ["bin", "proc", "tmp", "dev"] {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        // What a shell's background job reads from.
        try CommandRunner.shell("mknod -m 666 \(quoted(root + "/dev/null")) c 1 3")
        for program in programs { try install(program) }
    }

    /// The program and what ldd says it loads (nothing for a static one), at their paths.
    private func install(_ program: String) throws {
        try copy(program, to: root + "/bin/" + (program as NSString).lastPathComponent)
        let libraries = try CommandRunner.run("/usr/bin/ldd", [program]).stdout
        for word in libraries.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) where word.hasPrefix("/") {
            try copy(String(word), to: root + word)
        }
    }

    private func copy(_ file: String, to target: String) throws {
        guard !FileManager.default.fileExists(atPath: target) else { return }
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try CommandRunner.shell("cp -L \(quoted(file)) \(quoted(target))")
    }

    /// `/bin/PROGRAM ARGUMENTS` run in the chroot; /proc mounted there first when `proc`,
    /// and a tmpfs of its own on /tmp when `tmpfsOnTmp` (what is written there then leaves
    /// the root's figures alone). `tracer`: a command line that runs the whole (e.g.
    /// strace -f -o FILE).
    func run(_ program: String, _ arguments: [String], proc: Bool, tmpfsOnTmp: Bool = false, tracer: [String] = []) throws -> CommandResult {
        let mountProc = (proc ? "mount -t proc proc \(quoted(root + "/proc")) && " : "")
            + (tmpfsOnTmp ? "mount -t tmpfs -o size=8m tmpfs \(quoted(root + "/tmp")) && " : "")
        let inner = mountProc + "exec /usr/sbin/chroot \(quoted(root)) /bin/\(program) " + arguments.map(quoted).joined(separator: " ")
        let command = tracer + ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", inner]
        return try CommandRunner.run(command[0], Array(command.dropFirst()),
                                     environment: ["PATH": "/bin:/usr/bin", "HOME": "/", "LC_ALL": "C"], timeout: 30)
    }
}
