import Foundation
import Testing

/// `make install` and `make uninstall` at the same PREFIX: stripped binaries, a list of what
/// was installed, an uninstall that stops and disables the units in a running user manager
/// first, says what it removed and kept, leaves nothing of ours, and fails where nothing was
/// installed. The binaries come from this build (BUILDDIR=…), so nothing is compiled here.
@Suite struct MakeInstallTests {
    static let repository = DebianPackageTests.repository

    static func make(_ arguments: [String], in directory: String = repository.path, environment: [String: String]? = nil) throws -> CommandResult {
        try CommandRunner.run("/usr/bin/make", ["--no-print-directory", "-C", directory] + arguments,
                              environment: environment, timeout: 300)
    }

    /// What is left under `directory` that is not a directory.
    static func leftovers(_ directory: String) throws -> [String] {
        try CommandRunner.shell("find \(quoted(directory)) ! -type d").split(separator: "\n").map(String.init)
    }

    static func isStripped(_ binary: String) throws -> Bool {
        let sections = try CommandRunner.shell("readelf -S --wide \(quoted(binary))")
        return !sections.contains(".symtab") && !sections.contains(".debug_")
    }

    /// `make`, `make install` and `make deb` build in a directory of their own: in the test
    /// run's (this very `swift test` holds its lock) they would wait, silently, until it ends.
    @Test(Prerequisite.enabled(Prerequisite.hasCommand("make"), "needs make"))
    func makeBuildsBesideTheTestsNotInTheirBuildDirectory() throws {
        let plan = try Self.make(["-n", "build"])
        try #require(plan.status == 0, "\(plan.stderr)")
        let scratch = try #require(plan.stdout.firstMatch(of: /--scratch-path (\S+)/)?.output.1, "\(plan.stdout)")
        let used = URL(fileURLWithPath: String(scratch), relativeTo: Self.repository).standardizedFileURL.path
        let tests = CommandRunner.testBuildDirectory.resolvingSymlinksInPath().path
        #expect(!tests.hasPrefix(used + "/"), "make builds in \(used), where the tests' products are (\(tests))")
    }

    /// Without musl, with a C library it cannot link against, or with musl for the normal
    /// build, `make` says what to do and builds nothing.
    @Test(Prerequisite.enabled(Prerequisite.hasCommand("make"), "needs make"))
    func makeSaysWhatTheClientNeedsBeforeBuildingIt() throws {
        let scratch = try ScratchDirectory("make-client")
        let missing = try Self.make(["client", "MUSL_LIB=\(scratch.path)/no-musl", "SCRATCH=\(scratch.path)"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("the client links against musl, and there is no \(scratch.path)/no-musl/libc.a"), "\(missing.stderr)")
        #expect(missing.stderr.contains("apt-get install musl-dev"), "\(missing.stderr)")
        #expect(missing.stderr.contains("CLIENT_LIBC=glibc"), "\(missing.stderr)")
        let unknown = try Self.make(["client", "CLIENT_LIBC=uclibc", "SCRATCH=\(scratch.path)"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("make: CLIENT_LIBC is 'uclibc'; it is musl or glibc"), "\(unknown.stderr)")
        let normal = try Self.make(["client", "EMBEDDED=0", "CLIENT_LIBC=musl", "SCRATCH=\(scratch.path)"])
        #expect(normal.status != 0)
        #expect(normal.stderr.contains("CLIENT_LIBC=musl needs the lean build (EMBEDDED=1)"), "\(normal.stderr)")
        #expect(try Self.leftovers(scratch.path).isEmpty)
    }

    /// A user install, the socket enabled and the daemon answering; then `make uninstall` with
    /// the same PREFIX stops and disables them, removes every file and says so.
    @Test(Prerequisite.enabled(SystemdUserManager.available && DesktopBuild.available && ["make", "strip", "readelf"].allSatisfy(Prerequisite.hasCommand),
                               "needs root, systemd (a user manager and journald), make, binutils and glib-compile-schemas"))
    func uninstallUndoesInstallAndStopsTheDaemon() throws {
        let manager = try SystemdUserManager()
        let prefix = manager.directory + "/home/.local"
        // The user manager searches $XDG_DATA_HOME/systemd/user: ~/.local/share/systemd/user
        // on a real login, here the manager's own data directory.
        let unitDirectory = manager.environment["XDG_DATA_HOME"]! + "/systemd/user"
        let install = try Self.make(["install", "PREFIX=\(prefix)", "USERUNITDIR=\(unitDirectory)",
                                     "BUILDDIR=\(CommandRunner.productsDirectory.path)", "GNOME_SHELL=43", "PLASMA=5"])
        try #require(install.status == 0, "\(install.stderr)")
        var expected = [prefix + "/bin/usedspace", prefix + "/bin/usedspaced",
                        unitDirectory + "/usedspace.service", unitDirectory + "/usedspace.socket",
                        unitDirectory + "/usedspace-writers.socket", unitDirectory + "/usedspace-writers@.service",
                        prefix + "/share/dbus-1/services/io.github.usedspace.UsedSpace1.service",
                        prefix + "/share/man/man1/usedspace.1", prefix + "/share/man/man5/usedspace.conf.5",
                        prefix + "/share/man/man8/usedspaced.8"]
        for (source, installed) in [("usedspace.bash", "/share/bash-completion/completions/usedspace"),
                                    ("_usedspace", "/share/zsh/site-functions/_usedspace"),
                                    ("usedspace.fish", "/share/fish/vendor_completions.d/usedspace.fish")]
        where FileManager.default.fileExists(atPath: Self.repository.path + "/completions/" + source) {
            expected.append(prefix + installed)
        }
        // The desktops' front-ends, as desktop/build.sh builds them (the builds named): the
        // GNOME Shell 43 extension with its compiled settings schema, and the Plasma widget.
        expected += try DesktopBuild.files(in: try DesktopBuild.gnomeExtension(43))
            .map { prefix + "/share/gnome-shell/extensions/" + DesktopBuild.extensionUUID + "/" + $0 }
        expected += try DesktopBuild.files(in: try DesktopBuild.plasmoid(5)).map { prefix + "/share/plasma/plasmoids/" + DesktopBuild.plasmoidID + "/" + $0 }
        #expect(expected.contains { $0.hasSuffix("/schemas/gschemas.compiled") })
        let manifest = prefix + "/share/usedspace/installed-files"
        let listed = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(listed == expected.sorted())
        for binary in ["usedspace", "usedspaced"] {
            #expect(try Self.isStripped(prefix + "/bin/" + binary), "\(binary) is installed with its symbols")
        }

        try manager.writeConfig("[daemon]\ninterval = 1s\n")
        #expect(try manager.systemctl("daemon-reload").status == 0)
        #expect(try manager.systemctl("enable", "--now", "usedspace.socket").status == 0)
        let status = try CommandRunner.run(prefix + "/bin/usedspace", ["status", "--format", "json"], environment: manager.environment)
        #expect(status.stdout.contains(#""source":"daemon""#), "\(status.stdout)\(status.stderr)")
        let pid = try #require(try manager.mainPID())
        let link = manager.unitDirectory + "/sockets.target.wants/usedspace.socket"
        #expect(FileManager.default.fileExists(atPath: link))
        #expect(try manager.property("usedspace-writers.socket", "ActiveState") == "active", "the writers helper comes with the daemon")

        let uninstall = try Self.make(["uninstall", "PREFIX=\(prefix)"], environment: manager.environment)
        #expect(uninstall.status == 0, "\(uninstall.stdout)\(uninstall.stderr)")
        let said = uninstall.stdout
        #expect(said.contains("usedspace: ran systemctl --user disable --now usedspace.socket usedspace.service in the user manager of root"), "\(said)")
        #expect(said.contains("usedspace: ran systemctl --user daemon-reload in the user manager of root"), "\(said)")
        for file in expected { #expect(said.contains("usedspace: removed \(file)\n"), "\(said)") }
        #expect(said.contains("usedspace: removed \(manifest)\n"), "\(said)")
        let config = manager.configDirectory + "/usedspace", state = manager.stateDirectory + "/usedspace"
        #expect(said.contains("usedspace: kept your configuration: \(config)"), "\(said)")
        #expect(said.contains("usedspace: kept your state: \(state)"), "\(said)")
        #expect(said.contains("usedspace: uninstalled from \(prefix): \(expected.count) files removed"), "\(said)")
        #expect(FileManager.default.fileExists(atPath: config + "/config") && FileManager.default.fileExists(atPath: state))

        let left = try Self.leftovers(prefix) + Self.leftovers(unitDirectory)
            + CommandRunner.shell("find \(quoted(prefix + "/share")) -name '*usedspace*' -type d").split(separator: "\n").map(String.init)
        #expect(left.isEmpty, "left after make uninstall: \(left)")
        #expect(waitUntil(seconds: 10) { kill(pid, 0) != 0 }, "the daemon still runs from a deleted binary")
        var info = stat()
        #expect(lstat(link, &info) != 0, "a dangling \(link) is left")
        #expect(!FileManager.default.fileExists(atPath: manager.socketPath))
        for unit in ["usedspace.socket", "usedspace.service", "usedspace-writers.socket"] {
            #expect(try manager.property(unit, "ActiveState") == "inactive", "\(unit)")
            #expect(try manager.property(unit, "LoadState") == "not-found", "\(unit)")
        }

        // Again: nothing of ours is there any more, and it says so.
        let again = try Self.make(["uninstall", "PREFIX=\(prefix)"], environment: manager.environment)
        #expect(again.status != 0)
        #expect(again.stderr.contains("make uninstall: nothing of usedspace is installed under PREFIX=\(prefix)"), "\(again.stderr)")
    }

    /// With nothing of ours at PREFIX it fails and says so; an install made before the list of
    /// installed files existed is still removed, from the paths it would have used.
    @Test(Prerequisite.enabled(["make", "strip"].allSatisfy(Prerequisite.hasCommand), "needs make and binutils"))
    func uninstallFailsWhereNothingIsInstalledAndRemovesAnOlderInstall() throws {
        let scratch = try ScratchDirectory("uninstall")
        let empty = scratch.subpath("empty")
        let nothing = try Self.make(["uninstall", "PREFIX=\(empty)"])
        #expect(nothing.status != 0)
        #expect(nothing.stderr.contains("make uninstall: nothing of usedspace is installed under PREFIX=\(empty)"), "\(nothing.stderr)")
        #expect(nothing.stderr.contains("Pass the PREFIX you installed with"), "\(nothing.stderr)")

        let prefix = scratch.subpath("prefix")
        let install = try Self.make(["install", "PREFIX=\(prefix)", "BUILDDIR=\(CommandRunner.productsDirectory.path)"])
        try #require(install.status == 0, "\(install.stderr)")
        try FileManager.default.removeItem(atPath: prefix + "/share/usedspace/installed-files")
        let uninstall = try Self.make(["uninstall", "PREFIX=\(prefix)"])
        #expect(uninstall.status == 0, "\(uninstall.stdout)\(uninstall.stderr)")
        #expect(uninstall.stdout.contains("usedspace: no list of installed files at \(prefix)/share/usedspace/installed-files"), "\(uninstall.stdout)")
        #expect(uninstall.stdout.contains("usedspace: removed \(prefix)/bin/usedspaced\n"), "\(uninstall.stdout)")
        let left = try Self.leftovers(prefix)
        #expect(left.isEmpty, "left under \(prefix): \(left)")
    }

    /// Shell completions are not written yet: once completions/ has them, `make install` and
    /// `make deb` install them where each shell looks. Tried in a copy of the tree that has
    /// them (links to the repository's files, and three completion files of its own).
    @Test(Prerequisite.enabled(["make", "strip", "dpkg-deb", "dpkg-shlibdeps", "dpkg-gencontrol", "dpkg-parsechangelog"].allSatisfy(Prerequisite.hasCommand),
                               "needs make, binutils and dpkg-dev"))
    func completionsAreInstalledAndPackagedOnceTheyExist() throws {
        let scratch = try ScratchDirectory("completions")
        // The staging tree and the package on a tmpfs when we can mount one (other tests
        // compare the root filesystem with df while they run).
        let base = Prerequisite.isRoot ? try scratch.mountTmpfs(at: "fs", options: "size=1g,mode=755") : scratch.path
        let tree = base + "/tree"
        try FileManager.default.createDirectory(atPath: tree + "/completions", withIntermediateDirectories: true)
        for name in ["Makefile", "Sources", "systemd", "dbus", "man", "packaging", "docs", "desktop", "README.md"] {
            try FileManager.default.createSymbolicLink(atPath: tree + "/" + name, withDestinationPath: Self.repository.path + "/" + name)
        }
        for name in ["usedspace.bash", "_usedspace", "usedspace.fish"] {
            try "# completion for usedspace: \(name)\n".write(toFile: tree + "/completions/" + name, atomically: true, encoding: .utf8)
        }
        let products = "BUILDDIR=\(CommandRunner.productsDirectory.path)"

        let prefix = base + "/prefix"
        let install = try Self.make(["install", "PREFIX=\(prefix)", products], in: tree)
        try #require(install.status == 0, "\(install.stderr)")
        let installed = [prefix + "/share/bash-completion/completions/usedspace", prefix + "/share/zsh/site-functions/_usedspace",
                         prefix + "/share/fish/vendor_completions.d/usedspace.fish"]
        for file in installed { #expect(FileManager.default.fileExists(atPath: file), "\(file)") }
        let uninstall = try Self.make(["uninstall", "PREFIX=\(prefix)"], in: tree)
        #expect(uninstall.status == 0, "\(uninstall.stdout)\(uninstall.stderr)")
        for file in installed { #expect(uninstall.stdout.contains("usedspace: removed \(file)\n"), "\(uninstall.stdout)") }
        let left = try Self.leftovers(prefix)
        #expect(left.isEmpty, "left under \(prefix): \(left)")

        let deb = try Self.make(["deb", products], in: tree)
        try #require(deb.status == 0, "\(deb.stdout.suffix(2000))\(deb.stderr)")
        let path = try Self.make(["-s", "deb-path"], in: tree).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let files = Set(try DebianPackage.contents(of: path).map(\.path))
        for file in ["/usr/share/bash-completion/completions/usedspace", "/usr/share/zsh/vendor-completions/_usedspace",
                     "/usr/share/fish/vendor_completions.d/usedspace.fish"] {
            #expect(files.contains(file), "\(file) is not in the package")
        }
    }
}
