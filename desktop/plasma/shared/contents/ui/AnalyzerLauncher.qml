// Opens the disk usage analyzer (the configured command, else baobab) on a filesystem,
// detached from the widget, through Plasma's "executable" data engine.
import QtQuick 2.15
import "../code/statusJson.js" as StatusJson

Item {
    property int serial: 0

    Loader {
        id: engine
        source: "ExecutableSource.qml"
    }

    function open(analyzer, filesystem) {
        // Without the data engine the widget already says what to install.
        if (!engine.item)
            return;
        serial += 1;
        engine.item.run(StatusJson.analyzerCommand(analyzer, filesystem, serial));
    }
}
