import Foundation
import Testing

/// The shell completions: the files in completions/ are what the binary generates from its
/// option table (the table `--help` is made from), and each works in its real shell.
@Suite struct CompletionTests {
    static let directory = DocumentationTests.repository.appendingPathComponent("completions").path
    static let files = [("bash", "usedspace.bash"), ("zsh", "_usedspace"), ("fish", "usedspace.fish")]

    @Test(arguments: files) func theCommittedScriptIsWhatTheBinaryGenerates(_ shell: String, _ file: String) throws {
        let generated = try CommandRunner.run(CommandRunner.usedspace, ["completion", shell])
        #expect(generated.status == 0)
        let committed = try String(contentsOfFile: Self.directory + "/" + file, encoding: .utf8)
        #expect(committed == generated.stdout, "completions/\(file) is stale: run usedspace completion \(shell) > completions/\(file)")
    }

    @Test func everyOptionOfTheHelpIsCompleted() throws {
        let scripts = try Self.files.map { try String(contentsOfFile: Self.directory + "/" + $0.1, encoding: .utf8) }
        for command in ["status", "watch"] {
            let help = try CommandRunner.run(CommandRunner.usedspace, [command, "--help"]).stdout
            for option in DocumentationTests.options(inHelp: help) {
                for (script, (shell, _)) in zip(scripts, Self.files) {
                    let name = shell == "fish" ? "-l " + option.dropFirst(2) : option
                    #expect(script.contains(name), "the \(shell) completion lacks \(option) of \(command)")
                }
            }
        }
        let bad = try CommandRunner.run(CommandRunner.usedspace, ["completion", "tcsh"])
        #expect(bad.status == 2 && bad.stderr.contains("the shells are bash, zsh, fish"), "\(bad.stderr)")
    }

    /// What bash offers for the words typed so far (the last one being completed), through
    /// the script's own function, as bash calls it on a tab.
    static func bash(_ words: [String]) throws -> [String] {
        let array = words.map { quoted($0) }.joined(separator: " ")
        let script = "source \(quoted(directory + "/usedspace.bash")); COMP_WORDS=(\(array)); COMP_CWORD=\(words.count - 1); _usedspace; printf '%s\\n' \"${COMPREPLY[@]}\""
        let result = try CommandRunner.run("/bin/bash", ["-c", script], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test(Prerequisite.enabled(Prerequisite.hasCommand("bash"), "needs bash"))
    func bashCompletes() throws {
        #expect(try Self.bash(["usedspace", ""]) == ["status", "watch", "list", "click", "config", "completion", "help", "-h", "--help", "-V", "--version"])
        #expect(try Self.bash(["usedspace", "click", ""]) == ["left", "middle", "right", "--pid", "--name", "-h", "--help"])
        #expect(try Self.bash(["usedspace", "wa"]) == ["watch"])
        #expect(try Self.bash(["usedspace", "watch", "--form"]) == ["--format"])
        #expect(try Self.bash(["usedspace", "status", "-f", "i3"]) == ["i3bar", "i3blocks"])
        #expect(try Self.bash(["usedspace", "status", "--unit", ""]) == ["file", "si", "iec", "bytes"])
        #expect(try Self.bash(["usedspace", "watch", "--template", ""]) == [], "a template is typed, not chosen")
        #expect(try Self.bash(["usedspace", "status", "--path", "/us"]) == ["/usr"])
        #expect(try Self.bash(["usedspace", "completion", "f"]) == ["fish"])
        #expect(try Self.bash(["usedspace", "list", "-f", ""]) == ["text", "json"])
        #expect(try Self.bash(["usedspace", "list", "--lo"]) == ["--loops"])
    }

    @Test(Prerequisite.enabled(Prerequisite.hasCommand("fish"), "needs fish"))
    func fishCompletes() throws {
        func complete(_ line: String) throws -> [String] {
            let script = "source \(quoted(Self.directory + "/usedspace.fish")); complete -C \(quoted(line))"
            let result = try CommandRunner.run("/usr/bin/fish", ["--no-config", "-c", script], environment: ["PATH": "/usr/bin:/bin", "HOME": "/tmp"])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try Set(complete("usedspace ")) == ["status", "watch", "list", "click", "config", "completion", "help"])
        #expect(try complete("usedspace watch --form") == ["--format"])
        #expect(try complete("usedspace status --format i3") == ["i3bar", "i3blocks"])
        #expect(try Set(complete("usedspace watch --unit ")) == ["file", "si", "iec", "bytes"])
        #expect(try complete("usedspace completion z") == ["zsh"])
    }

    /// A real interactive zsh on a pseudo-terminal (zsh/zpty), compinit loading _usedspace
    /// from completions/, and a tab typed: Tests/Fixtures/zsh-complete.zsh.
    @Test(Prerequisite.enabled(Prerequisite.hasCommand("zsh"), "needs zsh"))
    func zshCompletes() throws {
        let scratch = try ScratchDirectory("zsh-completion")
        let fixture = DocumentationTests.repository.appendingPathComponent("Tests/Fixtures/zsh-complete.zsh").path
        func complete(_ line: String) throws -> [String] {
            let out = scratch.subpath("out")
            let result = try CommandRunner.run("/usr/bin/zsh", ["-f", fixture, Self.directory, out, line],
                                               environment: ["PATH": "/usr/bin:/bin", "HOME": scratch.path, "TERM": "dumb"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            return ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        #expect(try Set(complete("usedspace ")) == ["status", "watch", "list", "click", "config", "completion", "help", "-h", "--help", "-V", "--version"])
        #expect(try complete("usedspace status --for") == ["--format"])
        #expect(try complete("usedspace watch --format ") == ["text", "json", "i3bar", "i3blocks", "polybar", "waybar"])
        #expect(try complete("usedspace status --unit ") == ["file", "si", "iec", "bytes"])
    }
}
