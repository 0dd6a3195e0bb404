// The Used Space widget (Plasma 5.27): the compact view (bar and percentage) for a panel,
// the full view with every watched filesystem's details. Its data come from the client's
// long poll through the "executable" data engine (Plasma 5.27's QML has no D-Bus): one
// `usedspace status --all --format json --after SEQS` at a time, which waits, costing
// nothing, until the daemon publishes; the widget never touches a filesystem itself.
import QtQuick 2.15
import Qt.labs.platform 1.1 as Platform
import org.kde.plasma.plasmoid 2.0
import org.kde.plasma.core 2.0 as PlasmaCore
import "../code/statusJson.js" as StatusJson
import "../code/display.js" as Display

Item {
    id: root

    // 'connecting', 'running', 'absent' (no daemon: the client sampled by itself) or 'error'.
    property string daemon: "connecting"
    property string problem: ""
    property var filesystems: []
    property var seqs: []
    property int serial: 0
    property int failures: 0
    property double askedAt: 0
    readonly property string home: decodeURIComponent(String(Platform.StandardPaths.writableLocation(Platform.StandardPaths.HomeLocation)).replace(/^file:\/\//, ""))
    readonly property var view: Display.indicatorView(daemon, filesystems, home)

    // Off unless asked for (QT_LOGGING_RULES="io.github.usedspace.debug=true"): what the
    // widget shows, one line per change, for the tests.
    LoggingCategory {
        id: debugLog
        name: "io.github.usedspace"
        defaultLogLevel: LoggingCategory.Warning
    }

    Plasmoid.compactRepresentation: CompactRepresentation {
        view: root.view
        log: debugLog
    }
    Plasmoid.fullRepresentation: FullRepresentation {
        daemon: root.daemon
        problem: root.problem
        filesystems: root.filesystems
        home: root.home
        log: debugLog
        onOpenAnalyzer: root.openAnalyzer(filesystem)
    }
    Plasmoid.toolTipMainText: i18n("Used Space")
    Plasmoid.toolTipSubText: problem !== "" ? problem : view.text
    Plasmoid.icon: "drive-harddisk"

    PlasmaCore.DataSource {
        id: poll
        engine: "executable"
        onNewData: {
            // Disconnected at once: the engine drops the finished source, and with it the
            // process; the next poll is a new source.
            disconnectSource(sourceName);
            root.answered(data["exit code"], data["stdout"], data["stderr"]);
        }
    }

    PlasmaCore.DataSource {
        id: launcher
        engine: "executable"
        onNewData: disconnectSource(sourceName)
    }

    // Runs only after a failure, or while there is no daemon to wait on: never on an idle
    // disk with the daemon running.
    Timer {
        id: again
        repeat: false
        onTriggered: root.ask()
    }

    function ask() {
        serial += 1;
        askedAt = Date.now();
        poll.connectSource(StatusJson.command(daemon === "running" ? seqs : [], serial));
    }

    function answered(exitCode, stdout, stderr) {
        const answer = StatusJson.readAnswer(exitCode, stdout, stderr);
        const same = answer.seqs.join(",") === seqs.join(",");
        daemon = answer.daemon;
        problem = answer.problem || "";
        if (answer.problem) {
            // Again after 2, 4, 8… seconds, at most a minute apart.
            failures += 1;
            again.interval = Math.min(60000, 1000 * Math.pow(2, failures));
            again.start();
            return;
        }
        failures = 0;
        filesystems = answer.filesystems;
        seqs = answer.seqs;
        if (daemon !== "running") {
            // No daemon to wait on: the client samples by itself; look again in 5 s (what
            // `usedspace watch` does without a daemon).
            again.interval = 5000;
            again.start();
        } else if (same && Date.now() - askedAt < 1000) {
            // An answer that did not wait (a client without --after): no faster than 5 s.
            again.interval = 5000;
            again.start();
        } else {
            ask();
        }
    }

    function openAnalyzer(filesystem) {
        serial += 1;
        launcher.connectSource(StatusJson.analyzerCommand(plasmoid.configuration.analyzerCommand, filesystem, serial));
    }

    Component.onCompleted: ask()
}
