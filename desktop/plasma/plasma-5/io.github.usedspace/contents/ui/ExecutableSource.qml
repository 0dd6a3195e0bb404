// Runs a shell command through Plasma 5.27's "executable" data engine (plasma-framework):
// `run(command)` starts it, `finished` says its exit code and output once it has exited.
import QtQuick 2.15
import org.kde.plasma.core 2.0 as PlasmaCore

PlasmaCore.DataSource {
    signal finished(var exitCode, string stdout, string stderr)

    // The engine runs a source only when it does not have it already: each command's text
    // must be new (StatusJson adds a serial).
    function run(command) {
        connectSource(command);
    }

    engine: "executable"
    onNewData: {
        // Disconnected at once: the engine drops the finished source, and with it the
        // process; the next command is a new source.
        disconnectSource(sourceName);
        finished(data["exit code"], data["stdout"], data["stderr"]);
    }
}
