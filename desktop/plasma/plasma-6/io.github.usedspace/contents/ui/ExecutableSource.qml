// Runs a shell command through Plasma 6's "executable" data engine (Plasma5Support, package
// qml6-module-org-kde-plasma-plasma5support): `run(command)` starts it, `finished` says its
// exit code and output once it has exited.
import QtQuick 2.15
import org.kde.plasma.plasma5support 2.0 as Plasma5Support

Plasma5Support.DataSource {
    signal finished(var exitCode, string stdout, string stderr)

    // The engine runs a source only when it does not have it already: each command's text
    // must be new (StatusJson adds a serial).
    function run(command) {
        connectSource(command);
    }

    engine: "executable"
    onNewData: (sourceName, data) => {
        // Disconnected at once: the engine drops the finished source, and with it the
        // process; the next command is a new source.
        disconnectSource(sourceName);
        finished(data["exit code"], data["stdout"], data["stderr"]);
    }
}
