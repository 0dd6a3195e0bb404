import UsedSpaceCore

/// The bar settings given on a command line (`--warn 80%`, `--template …`), checked as
/// they are read so that a typo fails there and not in a status bar; applied over the
/// configuration's (BarProfiles).
struct BarArguments: Equatable {
    var settings: [Setting] = []

    struct Setting: Equatable {
        var key: String
        var value: String
    }

    /// Takes `name` when it is a bar option; false when it is not one.
    mutating func take(_ name: String, inline: String?, scanner: inout ArgumentScanner) throws(UsageError) -> Bool {
        // The bar options are the [bar] keys by the same names (a test checks the option
        // table says so too); the key list is cheaper to ask at every start than the table.
        guard name.hasPrefix("--"), BarOptions.configKeys.contains(String(name.dropFirst(2))) else { return false }
        let key = String(name.dropFirst(2))
        let value = try scanner.value(of: name, inline: inline)
        var probe = BarOptions()
        var lists = BarOptions.Lists()
        do {
            try probe.set(key, value, lists: &lists)
        } catch {
            // The message names the key already ("template: …"); the option is named here.
            var reason = error.message.hasPrefix(key + ": ") ? String(error.message.dropFirst(key.count + 2)) : error.message
            if let offset = error.offset { reason += " (at column \(offset + 1) of the template)" }
            throw .invalidValue(option: name, value: value, reason: reason, command: scanner.command)
        }
        settings.append(Setting(key: key, value: value))
        return true
    }

    var pairs: [(key: String, value: String)] { settings.map { ($0.key, $0.value) } }

    var isEmpty: Bool { settings.isEmpty }

    /// The command line's settings alone (text and json read no configuration).
    func options() -> BarOptions { BarProfiles(configuration: Configuration(), commandLine: pairs, home: nil).base }
}
