import Foundation

/// The desktop front-ends as `make install` installs them: built once per test process by
/// desktop/build.sh into a scratch directory (the GNOME Shell extension for 43 and for 45,
/// the Plasma widget for 5.27 and for 6).
enum DesktopBuild {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let extensionUUID = "usedspace@usedspace.github.io"
    static let plasmoidID = "io.github.usedspace"

    static var available: Bool { Prerequisite.hasCommand("glib-compile-schemas") }

    private static let built = Locked<Result<String, HarnessFailure>?>(nil)

    /// The output directory of desktop/build.sh (readable by everyone).
    static func output() throws -> String {
        try built.update { built in
            if built == nil {
                built = Result(catching: {
                    let directory = try ScratchDirectory.make("desktop-build")
                    let version = try CommandRunner.run(CommandRunner.usedspace, ["--version"]).stdout
                        .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "usedspace ", with: "")
                    let result = try CommandRunner.run("/bin/sh", [repository.path + "/desktop/build.sh", directory, version])
                    guard result.status == 0 else { throw HarnessFailure("desktop/build.sh: \(result.stderr)") }
                    return directory
                }).mapError { $0 as? HarnessFailure ?? HarnessFailure("\($0)") }
            }
            return try built!.get()
        }
    }

    /// The GNOME Shell extension built for `variant` (43 or 45).
    static func gnomeExtension(_ variant: Int) throws -> String {
        try output() + "/gnome-\(variant)/" + extensionUUID
    }

    /// The Plasma widget built for Plasma `major` (5 for 5.27, or 6).
    static func plasmoid(_ major: Int) throws -> String {
        try output() + "/plasma-\(major)/" + plasmoidID
    }

    static let schemaFile = "org.gnome.shell.extensions.usedspace.gschema.xml"

    /// Every file of a built front-end (`gnomeExtension()` or `plasmoid(_:)`), relative to
    /// its directory, sorted: what an install of it must hold.
    static func files(in directory: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { throw HarnessFailure("no \(directory)") }
        var files: [String] = []
        while let path = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(path) }
        }
        return files.sorted()
    }
}
