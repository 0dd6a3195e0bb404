import Foundation
import Testing

/// The Plasma widget given what the real client never prints (a stand-in `usedspace` on its
/// PATH that prints what the test wrote, else runs the real one): output that is not the
/// client's JSON, JSON without a key the widget needs, a failure with a message on stderr.
/// Each is said as an error (compact view "error", the full view the reason), never a broken
/// widget, and the real client's answer afterwards is shown again. No daemon runs: the real
/// client answers at once, sampling by itself, and the widget asks again every 5 s.
@Suite(.serialized, Prerequisite.root,
       Prerequisite.enabled(SystemdUserManager.unprivilegedAvailable, "needs root, systemd (a user manager and journald), useradd, setpriv, nsenter"),
       Prerequisite.enabled(PlasmaViewerSession.available, PlasmaViewerSession.requirement))
struct PlasmaMalformedTests {
    @Test func malformedAnswersAreShownAsErrorsAndARealAnswerRecovers() throws {
        let manager = try SystemdUserManager(asUser: SystemdUserManager.pool)
        let scratch = try ScratchDirectory("plasma-malformed")
        chown(scratch.path, manager.user!.uid, manager.user!.gid)
        let answer = scratch.subpath("answer"), status = scratch.subpath("status")
        let client = scratch.subpath("usedspace")
        try """
            #!/bin/sh
            if [ -f \(quoted(answer)) ]; then cat \(quoted(answer)); echo 'usedspace: the stand-in failed' >&2; exit "$(cat \(quoted(status)))"; fi
            exec \(quoted(CommandRunner.usedspace)) "$@"

            """.write(toFile: client, atomically: true, encoding: .utf8)
        chmod(client, 0o755)
        let viewer = try PlasmaViewerSession(session: manager, client: client)
        #expect(waitUntil(seconds: 10) { viewer.compact?.text == "no daemon" }, "\(String(describing: viewer.compact))")

        let cases: [(output: String, status: String, said: String)] = [
            ("not json at all\n", "0", "usedspace printed something that is not its JSON: not json at all"),
            (#"{"path":"/","mountpoint":"/","fstype":"ext4","label":"","state":"fresh","source":"daemon","seq":3}"# + "\n", "0",
             #"usedspace printed JSON without a known "severity""#),
            ("", "1", "usedspace: the stand-in failed"),
        ]
        for (output, code, said) in cases {
            try code.write(toFile: status, atomically: true, encoding: .utf8)
            try output.write(toFile: answer, atomically: true, encoding: .utf8)
            #expect(waitUntil(seconds: 8) { viewer.compact?.text == "error" }, "\(said): \(String(describing: viewer.compact))")
            #expect(viewer.compact?.level == "critical")
            #expect(waitUntil(seconds: 2) { viewer.message?.hasPrefix(said) == true }, "\(String(describing: viewer.message)), not \(said)")
            try FileManager.default.removeItem(atPath: answer)
            #expect(waitUntil(seconds: 8) { viewer.compact?.text == "no daemon" }, "after \(said): \(String(describing: viewer.compact))")
        }
        #expect(!viewer.log.contains("TypeError") && !viewer.log.contains("ReferenceError"), "\(viewer.log.suffix(3000))")
    }
}
