import Foundation

extension GnomeShellSession {
    /// How long the shell takes to answer its own D-Bus methods: a client as the session's
    /// user calls them one after the other (with 50 ms between), for `seconds`, and keeps
    /// the slowest round trip. In-process calls (python3-gi), so that no process start is
    /// counted.
    final class LatencyProbe {
        private let process: SpawnedProcess
        private let output: String
        private let seconds: Double

        fileprivate init(process: SpawnedProcess, output: String, seconds: Double) {
            self.process = process
            self.output = output
            self.seconds = seconds
        }

        /// Waits for the probe to end: how many calls it made and the slowest, in ms.
        func result() throws -> (calls: Int, worstMilliseconds: Double) {
            guard waitUntil(seconds: seconds + 30, { !self.process.isRunning }) else { throw HarnessFailure("the latency probe did not end") }
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            let fields = text.split(whereSeparator: \.isWhitespace)
            guard fields.count >= 2, let calls = Int(fields[0]), let worst = Double(fields[1]) else { throw HarnessFailure("latency probe: \(text)") }
            return (calls, worst)
        }
    }

    static let latencyScript = """
        import sys, time
        from gi.repository import Gio, GLib
        bus = Gio.bus_get_sync(Gio.BusType.SESSION)
        calls = [('/org/gnome/Shell', 'org.freedesktop.DBus.Properties', 'Get', GLib.Variant('(ss)', ('org.gnome.Shell', 'ShellVersion'))),
                 ('/org/gnome/Shell', 'org.gnome.Shell.Extensions', 'GetExtensionInfo', GLib.Variant('(s)', (sys.argv[2],)))]
        end = time.monotonic() + float(sys.argv[1])
        count, worst = 0, 0.0
        while time.monotonic() < end:
            path, interface, method, arguments = calls[count % len(calls)]
            started = time.monotonic()
            bus.call_sync('org.gnome.Shell', path, interface, method, arguments, None, Gio.DBusCallFlags.NONE, 10000, None)
            worst = max(worst, time.monotonic() - started)
            count += 1
            time.sleep(0.05)
        print(count, worst * 1000, flush=True)
        """

    /// Starts a LatencyProbe that runs for `seconds`.
    func startLatencyProbe(seconds: Double) throws -> LatencyProbe {
        let script = scratch.subpath("latency.py")
        try Self.latencyScript.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let output = scratch.subpath("latency.out")
        let process = try spawnAsUser("/usr/bin/python3", [script, String(seconds), DesktopBuild.extensionUUID], log: "latency.out")
        return LatencyProbe(process: process, output: output, seconds: seconds)
    }

    /// Sets a key of the extension's settings while the shell runs (the extension follows).
    func setSetting(_ key: String, _ value: String) throws {
        // The schema of an extension a user installed is in its own schemas/; the package's
        // is among the system's.
        let schemas = manager.user!.home + "/.local/share/gnome-shell/extensions/" + DesktopBuild.extensionUUID + "/schemas"
        let directory = manager.root == nil ? ["--schemadir", schemas] : []
        let result = try asUser("/usr/bin/gsettings", directory + ["set", "org.gnome.shell.extensions.usedspace", key, value])
        guard result.status == 0 else { throw HarnessFailure("gsettings set \(key): \(result.stderr)") }
    }
}
