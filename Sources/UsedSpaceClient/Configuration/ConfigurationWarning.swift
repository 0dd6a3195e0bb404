import UsedSpaceCore
import UsedSpaceSystem

/// A mistake in the configuration file, said once. The client reads the file itself (the
/// bar formats, `--all`) and the daemon says whether it refused it; when both are about the
/// same file (the client read the default one, the daemon's), one line says both.
struct ConfigurationWarning {
    /// What the client found wrong with the file it read.
    var ownProblem: String?
    /// The client read the default file, which the daemon reads too (no `--config`).
    var readTheDaemonsFile: Bool

    private static let fix = "fix it, check it with 'usedspace config check', then: systemctl --user reload usedspace"

    /// The lines for standard error, given the daemon's refusal, if any.
    func lines(daemonRefusal: String?) -> [String] {
        let fix = Self.fix
        var lines: [String] = []
        if let ownProblem {
            if daemonRefusal != nil && readTheDaemonsFile {
                return ["usedspace: \(ownProblem); usedspaced refused it too and runs with the default settings (\(fix))"]
            }
            lines.append("usedspace: \(ownProblem)")
        }
        if let daemonRefusal {
            lines.append("usedspace: warning: usedspaced refused its configuration: \(ControlCharacters.replaced(in: daemonRefusal)) (\(fix))")
        }
        return lines
    }

    /// `watch`'s line when the daemon's refusal comes after its own line (said at start).
    func laterRefusalLine(_ daemonRefusal: String) -> String {
        if ownProblem != nil && readTheDaemonsFile {
            return "usedspace: warning: usedspaced refused it too and runs with the default settings (\(Self.fix))"
        }
        return "usedspace: warning: usedspaced refused its configuration: \(ControlCharacters.replaced(in: daemonRefusal))"
    }

    func report(daemonRefusal: String?) {
        for line in lines(daemonRefusal: daemonRefusal) { StandardStreams.error(line) }
    }
}
