import Foundation
import Testing

/// The Debian package that `make deb` builds (USEDSPACE_DEB names it; `.ci/run` builds it
/// before `swift test`), checked as users get it: its contents and Depends, lintian, an
/// install into a clean Debian 12 root (debootstrap) with no Swift toolchain, and the packaged
/// units under a real unprivileged systemd user manager, with the maintainer scripts at work
/// on upgrade and purge.
@Suite(.serialized) struct DebianPackageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let user = "usedspace-pkg"

    /// "0.1.0", as the built client reports it.
    static func version() throws -> String {
        let output = try CommandRunner.run(CommandRunner.usedspace, ["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard output.hasPrefix("usedspace ") else { throw HarnessFailure("usedspace --version said \(output)") }
        return String(output.dropFirst("usedspace ".count))
    }

    /// Package names in a Depends-style field: "libc6 (>= 2.35), libsystemd0 (>= 247)".
    static func packageNames(_ field: String) -> Set<String> {
        Set(field.split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) })
    }

    /// What `make deb` puts in the package, besides the directories: binaries, units, man
    /// pages, documentation (the files over 4 KiB gzipped), copyright, changelog, the lintian
    /// overrides, and the completions once completions/ has them.
    static func expectedFiles() throws -> Set<String> {
        var files: Set<String> = [
            "/usr/bin/usedspace", "/usr/bin/usedspaced",
            "/usr/lib/systemd/user/usedspace.service", "/usr/lib/systemd/user/usedspace.socket",
            "/usr/lib/systemd/user/usedspace-writers.socket", "/usr/lib/systemd/user/usedspace-writers@.service",
            "/usr/share/dbus-1/services/io.github.usedspace.UsedSpace1.service",
            "/usr/share/man/man1/usedspace.1.gz", "/usr/share/man/man5/usedspace.conf.5.gz", "/usr/share/man/man8/usedspaced.8.gz",
            "/usr/share/doc/usedspace/copyright", "/usr/share/doc/usedspace/changelog.gz",
            "/usr/share/lintian/overrides/usedspace",
        ]
        func document(_ source: String, _ installed: String) throws {
            let size = try FileManager.default.attributesOfItem(atPath: repository.appendingPathComponent(source).path)[.size] as? Int ?? 0
            files.insert(installed + (size > 4096 && installed.hasSuffix(".md") ? ".gz" : ""))
        }
        try document("README.md", "/usr/share/doc/usedspace/README.md")
        let docs = repository.appendingPathComponent("docs")
        for name in try FileManager.default.contentsOfDirectory(atPath: docs.path) where name.hasSuffix(".md") {
            try document("docs/" + name, "/usr/share/doc/usedspace/docs/" + name)
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: docs.appendingPathComponent("images").path) where name.hasSuffix(".png") {
            files.insert("/usr/share/doc/usedspace/docs/images/" + name)
        }
        let completions = [("usedspace.bash", "/usr/share/bash-completion/completions/usedspace"),
                           ("_usedspace", "/usr/share/zsh/vendor-completions/_usedspace"),
                           ("usedspace.fish", "/usr/share/fish/vendor_completions.d/usedspace.fish")]
        for (source, installed) in completions
        where FileManager.default.fileExists(atPath: repository.appendingPathComponent("completions/" + source).path) {
            files.insert(installed)
        }
        // The desktops' front-ends: every build of the GNOME Shell extension and of the Plasma
        // widget, which the postinst links for the desktops installed (desktop-builds); the
        // extension's settings schema where glib's trigger compiles it (as Debian's
        // extension packages have it).
        for variant in [43, 45] {
            for file in try DesktopBuild.files(in: try DesktopBuild.gnomeExtension(variant)) where !file.hasPrefix("schemas/") {
                files.insert("/usr/share/usedspace/desktop/gnome-shell-\(variant)/" + DesktopBuild.extensionUUID + "/" + file)
            }
        }
        for major in [5, 6] {
            for file in try DesktopBuild.files(in: try DesktopBuild.plasmoid(major)) {
                files.insert("/usr/share/usedspace/desktop/plasma-\(major)/" + DesktopBuild.plasmoidID + "/" + file)
            }
        }
        files.insert("/usr/share/glib-2.0/schemas/" + DesktopBuild.schemaFile)
        files.insert("/usr/libexec/usedspace/desktop-builds")
        return files
    }

    // MARK: - What is in the package

    // The reasons here are joined with +, not interpolated: an interpolation in a @Test's
    // arguments crashes Swift 6.0.3's compiler (an assertion in CSGen's visitTapExpr).
    @Test(Prerequisite.enabled(DebianPackage.available && ["dpkg-deb", "lintian", "readelf", "file"].allSatisfy(Prerequisite.hasCommand),
                               Comment(rawValue: DebianPackage.missing + "; and dpkg-deb, lintian, binutils, file")))
    func contentsDependsAndLintian() throws {
        let deb = try DebianPackage.require()
        let version = try Self.version()
        let architecture = try CommandRunner.shell("dpkg --print-architecture").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect((deb as NSString).lastPathComponent == "usedspace_\(version)_\(architecture).deb")
        #expect(try DebianPackage.field("Package", of: deb) == "usedspace")
        #expect(try DebianPackage.field("Version", of: deb) == version)
        #expect(try DebianPackage.field("Architecture", of: deb) == architecture)
        // The client is static; the daemon needs what dpkg-shlibdeps found, and nothing else.
        let depends = try DebianPackage.field("Depends", of: deb)
        #expect(Self.packageNames(depends) == ["libc6", "libsystemd0"], "Depends: \(depends)")
        // The bash completion it installs works only with bash-completion loaded.
        #expect(Self.packageNames(try DebianPackage.field("Recommends", of: deb)) == ["bash-completion"])
        #expect(try Self.packageNames(DebianPackage.field("Built-Using", of: deb)) == ["gcc-12", "musl"])
        #expect(try DebianPackage.field("Section", of: deb) == "utils")
        #expect(try DebianPackage.field("Priority", of: deb) == "optional")

        let members = try DebianPackage.contents(of: deb)
        let files = Set(members.filter { !$0.mode.hasPrefix("d") }.map(\.path))
        let expected = try Self.expectedFiles()
        #expect(files == expected, "missing: \(expected.subtracting(files).sorted()), unexpected: \(files.subtracting(expected).sorted())")
        for member in members {
            #expect(member.owner == "root/root", "\(member.path) is owned by \(member.owner)")
            let mode = member.mode.hasPrefix("d") || member.path.hasPrefix("/usr/bin/") || member.path.hasPrefix("/usr/libexec/") ? "rwxr-xr-x" : "rw-r--r--"
            #expect(member.mode.dropFirst() == mode, "\(member.path): \(member.mode)")
        }

        // Unpacked (here and by lintian) on a tmpfs when we can mount one: other tests compare
        // the root filesystem with df while they run.
        let scratch = try ScratchDirectory("deb-contents")
        let work = Prerequisite.isRoot ? try scratch.mountTmpfs(at: "fs", options: "size=1g,mode=1777") : scratch.path
        let root = work + "/root", control = work + "/control"
        try CommandRunner.shell("dpkg-deb -x \(quoted(deb)) \(quoted(root)) && dpkg-deb -e \(quoted(deb)) \(quoted(control))")
        // Stripped binaries: no symbol table, no debug information.
        for binary in ["usedspace", "usedspaced"] {
            let sections = try CommandRunner.shell("readelf -S --wide \(quoted(root + "/usr/bin/" + binary))")
            #expect(!sections.contains(".symtab") && !sections.contains(".debug_"), "\(binary) is not stripped")
            let reported = try CommandRunner.run(root + "/usr/bin/" + binary, ["--version"]).stdout
            #expect(reported == "\(binary) \(version)\n")
        }
        let client = try CommandRunner.shell("file -b \(quoted(root + "/usr/bin/usedspace"))")
        #expect(client.contains("statically linked"), "\(client)")
        let needed = try CommandRunner.shell("readelf -d \(quoted(root + "/usr/bin/usedspaced"))")
            .matches(of: /\(NEEDED\)\s+Shared library: \[([^\]]+)\]/).map { String($0.output.1) }
        // No libm: its mapping alone was 384 KiB of the daemon's memory (CLinux/Rounding.c).
        #expect(Set(needed).isSubset(of: ["libsystemd.so.0", "libc.so.6", "ld-linux-x86-64.so.2"]), "\(needed)")
        #expect(needed.contains("libsystemd.so.0"))

        // The units as `make install` writes them, for /usr/bin.
        let service = try String(contentsOfFile: root + "/usr/lib/systemd/user/usedspace.service", encoding: .utf8)
        #expect(service.contains("\nExecStart=/usr/bin/usedspaced\n") && !service.contains("@bindir@"))
        #expect(try String(contentsOfFile: root + "/usr/lib/systemd/user/usedspace.socket", encoding: .utf8)
                == String(contentsOf: Self.repository.appendingPathComponent("systemd/usedspace.socket"), encoding: .utf8))
        let helper = try String(contentsOfFile: root + "/usr/lib/systemd/user/usedspace-writers@.service", encoding: .utf8)
        #expect(helper.contains("\nExecStart=/usr/bin/usedspaced --name-writers\n") && !helper.contains("@bindir@"))
        #expect(try String(contentsOfFile: root + "/usr/lib/systemd/user/usedspace-writers.socket", encoding: .utf8)
                == String(contentsOf: Self.repository.appendingPathComponent("systemd/usedspace-writers.socket"), encoding: .utf8))
        // The session bus starts the daemon through systemd (Exec= is never run with it).
        #expect(try String(contentsOfFile: root + "/usr/share/dbus-1/services/io.github.usedspace.UsedSpace1.service", encoding: .utf8)
                == String(contentsOf: Self.repository.appendingPathComponent("dbus/io.github.usedspace.UsedSpace1.service"), encoding: .utf8))
        for (installed, source) in [("man1/usedspace.1.gz", "man/usedspace.1"), ("man5/usedspace.conf.5.gz", "man/usedspace.conf.5"),
                                    ("man8/usedspaced.8.gz", "man/usedspaced.8")] {
            let page = try CommandRunner.shell("gzip -dc \(quoted(root + "/usr/share/man/" + installed))")
            #expect(try page == String(contentsOf: Self.repository.appendingPathComponent(source), encoding: .utf8), "\(installed)")
        }
        let copyright = try String(contentsOfFile: root + "/usr/share/doc/usedspace/copyright", encoding: .utf8)
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
        #expect(copyright.contains("\nFiles: *\n") && copyright.contains("\nLicense: Expat\n"))
        let changelog = try CommandRunner.shell("gzip -dc \(quoted(root + "/usr/share/doc/usedspace/changelog.gz"))")
        #expect(changelog.hasPrefix("usedspace (\(version)) "))
        // The maintainer scripts: complete (the shared part pasted in) and valid sh.
        for script in ["postinst", "prerm", "postrm"] {
            let path = control + "/" + script
            #expect(FileManager.default.isExecutableFile(atPath: path), "\(script)")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("usedspace_in_user_managers()") && !text.contains("#USER_MANAGERS#"), "\(script)")
            #expect(try CommandRunner.run("/bin/sh", ["-n", path]).status == 0, "\(script)")
        }

        // lintian: no error and no warning (the overrides in the package say why for each
        // tag they silence). It warns when run as root: run it as nobody when we are root.
        let started = Date()
        let lintian = Prerequisite.isRoot
            ? try CommandRunner.run("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--",
                                                          "/usr/bin/lintian", "--fail-on", "error,warning", deb],
                                    environment: ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8", "TMPDIR": work],
                                    timeout: 300)
            : try CommandRunner.run("/usr/bin/lintian", ["--fail-on", "error,warning", deb], timeout: 300)
        let tags = (lintian.stdout + lintian.stderr).split(separator: "\n").filter { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") }
        #expect(lintian.status == 0 && tags.isEmpty, "lintian: \(lintian.stdout)\(lintian.stderr)")
        print("lintian \(deb): exit \(lintian.status), \(tags.count) errors and warnings, \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    // MARK: - A clean Debian 12 root

    /// debootstrap's Debian 12 (cached per machine), the package installed by apt (its Depends
    /// resolved from the archive), the client run with no Swift toolchain anywhere, then
    /// `dpkg --purge`: nothing of ours is left, and nothing else is either but what packages
    /// apt may have added for us own.
    @Test(Prerequisite.enabled(DebianPackage.available && DebianRoot.available,
                               Comment(rawValue: "needs root, debootstrap, the Debian archive, and the package: " + DebianPackage.missing)))
    func installsRunsAndPurgesInACleanDebianRoot() throws {
        let deb = try DebianPackage.require()
        let version = try Self.version()
        var started = Date()
        let debian = try DebianRoot()
        print("Debian 12 root: \(debian.debootstrapSeconds.map { String(format: "debootstrap %.1f s", $0) } ?? "debootstrap cached"), "
              + String(format: "ready in %.1f s", Date().timeIntervalSince(started)))
        let before = try debian.paths()

        // No Swift toolchain and no Swift runtime library anywhere in it.
        let toolchain = try debian.run("command -v swift; command -v swiftc; find / -xdev \\( -name 'libswiftCore*' -o -name 'libFoundation*.so' \\) -print")
        #expect(toolchain.stdout.isEmpty, "found in the clean root: \(toolchain.stdout)")

        started = Date()
        let name = (deb as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: deb, toPath: debian.root + "/tmp/" + name)
        let install = try debian.run("apt-get update -q && apt-get install -y -q /tmp/\(name)", timeout: 600)
        #expect(install.status == 0, "\(install.stdout.suffix(3000))\(install.stderr)")
        #expect(install.stdout.contains("Setting up usedspace (\(version))"), "\(install.stdout.suffix(3000))")
        print(String(format: "apt-get update and install in the clean root: %.1f s", Date().timeIntervalSince(started)))
        try FileManager.default.removeItem(atPath: debian.root + "/tmp/" + name)

        let details = try debian.run("usedspace status --details")
        let lines = details.stdout.split(separator: "\n")
        #expect(details.status == 0 && lines.count >= 4, "\(details.stdout)\(details.stderr)")
        #expect(lines.first?.hasPrefix("[") == true && lines.first?.hasSuffix("%") == true, "\(details.stdout)")
        #expect(["Used:", "Free:", "Total:"].allSatisfy { label in lines.contains { $0.hasPrefix(label) } }, "\(details.stdout)")
        let json = try debian.shell("usedspace status --format json")
        #expect(json.contains(#""state":"fresh""#) && json.contains(#""source":"direct""#), "\(json)")
        // The daemon's libraries are all there (libc6, libsystemd0), and it runs.
        #expect(try debian.shell("usedspaced --version") == "usedspaced \(version)\n")
        let libraries = try debian.shell("ldd /usr/bin/usedspaced")
        #expect(!libraries.contains("not found"), "\(libraries)")

        let ours = try debian.shell("dpkg-query -L usedspace").split(separator: "\n").map(String.init)
        #expect(ours.contains("/usr/bin/usedspace") && ours.contains("/usr/lib/systemd/user/usedspace.socket"))
        let purge = try debian.run("dpkg --purge usedspace")
        #expect(purge.status == 0, "\(purge.stdout)\(purge.stderr)")
        #expect(try debian.run("dpkg-query -W usedspace").status != 0, "usedspace is still known to dpkg")

        // Every file the package had is gone, and so is every directory that only it had.
        let after = try debian.paths()
        for path in ours where !before.contains(path) {
            #expect(!after.contains(path), "\(path) is left after dpkg --purge")
        }
        let named = try debian.shell("find / -xdev -iname '*usedspace*' -print")
        #expect(named.isEmpty, "left after dpkg --purge: \(named)")
        #expect(before.subtracting(after).isEmpty, "gone since before the install: \(before.subtracting(after).sorted())")
        // What is new since before the install belongs to the packages apt added for us (or,
        // made by their maintainer scripts, is a link to a file of theirs). Debian 12 merges /usr:
        // dpkg knows /bin/ps as /bin/ps, found here as /usr/bin/ps.
        let added = after.subtracting(before).sorted()
        let orphans = try debian.run("""
            owned() { dpkg-query -S "$1" >/dev/null 2>&1; }
            alias() { case $1 in /usr/bin/* | /usr/sbin/* | /usr/lib/* | /usr/lib64/*) echo "${1#/usr}" ;; /bin/* | /sbin/* | /lib/* | /lib64/*) echo "/usr$1" ;; esac; }
            while IFS= read -r path; do
                [ -n "$path" ] || continue
                owned "$path" && continue
                a=$(alias "$path"); [ -n "$a" ] && owned "$a" && continue
                if [ -L "$path" ]; then t=$(readlink -f "$path"); owned "$t" && continue; a=$(alias "$t"); [ -n "$a" ] && owned "$a" && continue; fi
                echo "$path"
            done
            """, stdin: added.joined(separator: "\n") + "\n")
        #expect(orphans.status == 0 && orphans.stdout.isEmpty, "new since the install and owned by no package: \(orphans.stdout)\(orphans.stderr)")
        print("clean root: none left of usedspace; \(added.count) paths added by the packages apt installed for it")
    }

    // MARK: - The desktops' builds, by what is installed

    /// The package installs every build of the GNOME Shell extension and the Plasma widget,
    /// and links the ones that suit the desktops there; when a GNOME Shell or a Plasma comes,
    /// changes generation or goes, dpkg's file trigger links again, with no step of the
    /// user's. Shown in a clean Debian 12 root with stand-in desktop packages (a
    /// /usr/bin/gnome-shell that says its version, a kpackagetool5 or 6), installed, upgraded
    /// and removed by dpkg as the real ones are; the real GNOME Shells and Plasmas of each
    /// release run what the package linked in GnomeShellGenerationTests and
    /// PlasmaWidgetGenerationTests.
    @Test(Prerequisite.enabled(DebianPackage.available && DebianRoot.available && Prerequisite.hasCommand("dpkg-deb"),
                               Comment(rawValue: "needs root, debootstrap, the Debian archive, dpkg-deb, and the package: " + DebianPackage.missing)))
    func theDesktopsBuildsFollowTheDesktopsInstalled() throws {
        let deb = try DebianPackage.require()
        let debian = try DebianRoot()
        let scratch = try ScratchDirectory("desktop-stand-ins")
        let name = (deb as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: deb, toPath: debian.root + "/tmp/" + name)
        let install = try debian.run("apt-get update -q && apt-get install -y -q /tmp/\(name)", timeout: 600)
        try #require(install.status == 0, "\(install.stdout.suffix(3000))\(install.stderr)")
        let extensionLink = "/usr/share/gnome-shell/extensions/" + DesktopBuild.extensionUUID
        let widgetLink = "/usr/share/plasma/plasmoids/" + DesktopBuild.plasmoidID
        func linked() throws -> (gnome: String, plasma: String) {
            let targets = try debian.shell("readlink \(extensionLink) \(widgetLink)").split(separator: "\n").map(String.init)
            guard targets.count == 2 else { throw HarnessFailure("links: \(targets)") }
            return (targets[0], targets[1])
        }
        let builds = "/usr/share/usedspace/desktop/"
        // No desktop at all: the builds for today's desktops.
        #expect(try linked() == (builds + "gnome-shell-45/" + DesktopBuild.extensionUUID, builds + "plasma-6/" + DesktopBuild.plasmoidID))
        #expect(install.stderr.contains("desktop-builds: no GNOME Shell here"), "\(install.stderr.suffix(2000))")

        /// A stand-in package `name` at `version` holding the executable `program`, which prints `says`.
        func standIn(_ package: String, _ version: String, _ program: String, says: String) throws -> String {
            let tree = scratch.subpath("\(package)-\(version)")
            try FileManager.default.createDirectory(atPath: tree + "/DEBIAN", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: tree + "/usr/bin", withIntermediateDirectories: true)
            try "Package: \(package)\nVersion: \(version)\nArchitecture: all\nMaintainer: tests <tests@example.invalid>\nDescription: stand-in for the tests\n"
                .write(toFile: tree + "/DEBIAN/control", atomically: true, encoding: .utf8)
            try "#!/bin/sh\necho \(quoted(says))\n".write(toFile: tree + "/usr/bin/" + program, atomically: true, encoding: .utf8)
            chmod(tree + "/usr/bin/" + program, 0o755)
            let built = "/tmp/\(package)_\(version)_all.deb"
            try CommandRunner.shell("dpkg-deb --root-owner-group --build \(quoted(tree)) \(quoted(debian.root + built)) >/dev/null")
            return built
        }
        /// What dpkg and the maintainer scripts it ran said.
        func dpkg(_ arguments: String) throws -> String {
            let result = try debian.run("dpkg \(arguments)", timeout: 120)
            guard result.status == 0 else { throw HarnessFailure("dpkg \(arguments): \(result.stdout)\(result.stderr)") }
            return result.stdout + result.stderr
        }

        // GNOME Shell 43 installed: its trigger links the legacy build; upgraded to 48: the
        // ES-module build; removed: today's again.
        var said = try dpkg("-i " + (try standIn("gnome-shell", "43.9-0+deb12u2", "gnome-shell", says: "GNOME Shell 43.9")))
        #expect(try linked().gnome == builds + "gnome-shell-43/" + DesktopBuild.extensionUUID, "\(said)")
        #expect(said.contains("desktop-builds: GNOME Shell 43: the extension for GNOME 43 and 44"), "\(said)")
        said = try dpkg("-i " + (try standIn("gnome-shell", "48.7-0+deb13u2", "gnome-shell", says: "GNOME Shell 48.7")))
        #expect(try linked().gnome == builds + "gnome-shell-45/" + DesktopBuild.extensionUUID, "\(said)")
        _ = try dpkg("--purge gnome-shell")
        #expect(try linked().gnome == builds + "gnome-shell-45/" + DesktopBuild.extensionUUID)

        // Plasma 5.27 (kpackagetool5), then Plasma 6 beside it, then 6 gone again.
        said = try dpkg("-i " + (try standIn("kpackagetool5", "5.103.0-1", "kpackagetool5", says: "kpackagetool5 2.0")))
        #expect(try linked().plasma == builds + "plasma-5/" + DesktopBuild.plasmoidID, "\(said)")
        _ = try dpkg("-i " + (try standIn("kpackagetool6", "6.13.0-1", "kpackagetool6", says: "kpackagetool6 2.0")))
        #expect(try linked().plasma == builds + "plasma-6/" + DesktopBuild.plasmoidID)
        _ = try dpkg("--purge kpackagetool6")
        #expect(try linked().plasma == builds + "plasma-5/" + DesktopBuild.plasmoidID)

        // Removed: the links go with the package.
        _ = try dpkg("--purge usedspace")
        #expect(try debian.run("test -e \(extensionLink) || test -L \(extensionLink) || test -e \(widgetLink) || test -L \(widgetLink)").status != 0,
                "a link is left after dpkg --purge")
    }

    // MARK: - A real user manager

    /// The package installed on this machine with dpkg (only where usedspace is not installed
    /// already; purged at the end, whatever happens), and a real unprivileged user manager:
    /// it finds the packaged units in /usr/lib/systemd/user, the socket starts the packaged
    /// daemon, an upgrade restarts it onto the new binary (postinst), and `dpkg --purge` stops
    /// and disables it for the logged-in user (prerm) and leaves no link behind.
    @Test(Prerequisite.enabled(DebianPackage.available && SystemdUserManager.unprivilegedAvailable && Prerequisite.hasCommand("dpkg")
                               && !DebianPackage.installedHere,
                               Comment(rawValue: "needs root, systemd (a user manager and journald), useradd, setpriv, dpkg, the package (" + DebianPackage.missing
                                       + "), and a machine where usedspace is not installed: it installs the package here and purges it")))
    func aRealUserManagerRunsThePackagedDaemon() throws {
        guard !DebianPackage.installedHere else {
            Issue.record("usedspace is installed on this machine: this test installs the package here and purges it, so it does not run where that would replace an installation")
            return
        }
        let deb = try DebianPackage.require()
        let install = try CommandRunner.run("/usr/bin/dpkg", ["-i", deb], timeout: 300)
        var installed = true
        defer {
            if installed { _ = try? CommandRunner.run("/usr/bin/dpkg", ["--purge", "usedspace"], timeout: 300) }
        }
        try #require(install.status == 0, "dpkg -i: \(install.stdout)\(install.stderr)")

        let manager = try SystemdUserManager(asUser: [Self.user])
        let home = manager.user!.home
        #expect(try manager.property("usedspace.socket", "FragmentPath") == "/usr/lib/systemd/user/usedspace.socket")
        let enable = try manager.systemctl("enable", "--now", "usedspace.socket")
        try #require(enable.status == 0, "\(enable.stderr)")
        let link = manager.unitDirectory + "/sockets.target.wants/usedspace.socket"
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "/usr/lib/systemd/user/usedspace.socket")

        let status = try manager.runAsUser("/usr/bin/usedspace", ["status", "--format", "json"])
        #expect(status.status == 0 && status.stdout.contains(#""source":"daemon""#), "\(status.stdout)\(status.stderr)")
        let firstPID = try #require(try manager.mainPID())
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(firstPID)/exe")) == "/usr/bin/usedspaced")
        #expect(try manager.property("usedspace.service", "ExecStart").contains("path=/usr/bin/usedspaced"))
        // The writers helper's socket comes with the daemon (its Wants=), from the package.
        #expect(try manager.property("usedspace-writers.socket", "ActiveState") == "active")
        #expect(try manager.property("usedspace-writers.socket", "FragmentPath") == "/usr/lib/systemd/user/usedspace-writers.socket")

        // An upgrade (here: the same version again): postinst restarts the running daemon.
        let upgrade = try CommandRunner.run("/usr/bin/dpkg", ["-i", deb], timeout: 300)
        #expect(upgrade.status == 0, "\(upgrade.stdout)\(upgrade.stderr)")
        #expect(upgrade.stdout.contains("try-restart usedspace.service in the user manager of \(Self.user)"), "\(upgrade.stdout)")
        let restarted = waitUntil(seconds: 10) { (try? manager.mainPID()).flatMap { $0 } .map { $0 != firstPID } ?? false }
        #expect(restarted, "the daemon was not restarted by the upgrade")
        let secondPID = try manager.mainPID()
        let again = try manager.runAsUser("/usr/bin/usedspace", ["status", "--format", "json"])
        #expect(again.stdout.contains(#""source":"daemon""#), "\(again.stdout)\(again.stderr)")

        // Purge: prerm stops and disables the units in the user's manager.
        let purge = try CommandRunner.run("/usr/bin/dpkg", ["--purge", "usedspace"], timeout: 300)
        installed = purge.status != 0
        #expect(purge.status == 0, "\(purge.stdout)\(purge.stderr)")
        #expect(purge.stdout.contains("disable --now usedspace.socket usedspace.service in the user manager of \(Self.user)"), "\(purge.stdout)")
        if let secondPID {
            #expect(waitUntil(seconds: 10) { kill(secondPID, 0) != 0 }, "the daemon (\(secondPID)) still runs after dpkg --purge")
        }
        #expect(try manager.property("usedspace.socket", "ActiveState") == "inactive")
        #expect(try manager.property("usedspace.service", "ActiveState") == "inactive")
        #expect(try manager.property("usedspace-writers.socket", "ActiveState") == "inactive", "stopped with the daemon (PartOf=)")
        var info = stat()
        #expect(lstat(link, &info) != 0, "\(link) is left after dpkg --purge")
        #expect(!FileManager.default.fileExists(atPath: manager.socketPath), "\(manager.socketPath) is left")
        for path in ["/usr/bin/usedspace", "/usr/bin/usedspaced", "/usr/lib/systemd/user/usedspace.socket", "/usr/lib/systemd/user/usedspace.service",
                     "/usr/lib/systemd/user/usedspace-writers.socket", "/usr/lib/systemd/user/usedspace-writers@.service"] {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) is left")
        }
        // What belongs to the user stays: the daemon's state in the home directory.
        #expect(FileManager.default.fileExists(atPath: home + "/.local/state/usedspace"))
    }
}
