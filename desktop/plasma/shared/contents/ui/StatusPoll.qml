// The daemon's state as the widget follows it: the client's long poll through Plasma's
// "executable" data engine (ExecutableSource, Plasma 5.27's or 6's). One
// `usedspace status --all --format json --after SEQS` at a time, which waits, costing nothing,
// until the daemon publishes; the widget never touches a filesystem itself.
import QtQuick 2.15
import "../code/statusJson.js" as StatusJson

Item {
    id: poll

    // What the views show, replaced as a whole so that none of them ever sees a new `daemon`
    // with the previous `filesystems` (a "no daemon" answer's own sample shown as the
    // daemon's, for a moment): {daemon, problem, filesystems}. `daemon`: 'connecting',
    // 'running', 'absent' (no daemon: the client sampled by itself), 'missing' (no client to
    // run: usedspace is not installed) or 'error'; `problem`:
    // why what came is not an answer (shown as an error), or "".
    property var current: ({daemon: "connecting", problem: "", filesystems: []})
    // What to install when the data engine cannot be loaded (Plasma 6 without Plasma5Support):
    // said instead of a QML error.
    property string missingEngine

    property var seqs: []
    property int serial: 0
    property int failures: 0
    property double askedAt: 0

    Loader {
        id: engine
        source: "ExecutableSource.qml"
        onLoaded: poll.ask()
        onStatusChanged: {
            if (status === Loader.Error)
                poll.current = {daemon: "error", problem: poll.missingEngine, filesystems: []};
        }
    }

    Connections {
        target: engine.item
        function onFinished(exitCode, stdout, stderr) {
            poll.answered(exitCode, stdout, stderr);
        }
    }

    // Runs only after a failure, or while there is no daemon to wait on: never on an idle
    // disk with the daemon running.
    Timer {
        id: again
        repeat: false
        onTriggered: poll.ask()
    }

    function ask() {
        serial += 1;
        askedAt = Date.now();
        engine.item.run(StatusJson.command(current.daemon === "running" ? seqs : [], serial));
    }

    function answered(exitCode, stdout, stderr) {
        const answer = StatusJson.readAnswer(exitCode, stdout, stderr);
        const same = answer.seqs.join(",") === seqs.join(",");
        if (answer.problem || answer.daemon === "missing") {
            current = {daemon: answer.daemon, problem: answer.problem || "", filesystems: answer.problem ? current.filesystems : []};
            // Again after 2, 4, 8… seconds, at most a minute apart (usedspace may be installed
            // meanwhile).
            failures += 1;
            again.interval = Math.min(60000, 1000 * Math.pow(2, failures));
            again.start();
            return;
        }
        failures = 0;
        current = {daemon: answer.daemon, problem: "", filesystems: answer.filesystems};
        seqs = answer.seqs;
        if (answer.daemon !== "running") {
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
}
