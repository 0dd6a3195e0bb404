// In a panel: the bar and the percentage (or "no daemon", "failed", "error"), in the level's
// colour, italic while stale. A click opens the full view (main.qml's handler: Plasma 5.27 and
// 6 keep `expanded` in different places).
import QtQuick 2.15
import QtQuick.Layouts 1.15
import org.kde.plasma.components 3.0 as PlasmaComponents3

MouseArea {
    id: compact
    property var view
    property var log
    readonly property color tint: levels.color(view)

    // What it says, in the debug log, whenever any of it changes: the level can change while
    // the text does not (a reload that moves a limit).
    readonly property string said: view.text + " level: " + view.level + " mode: " + view.mode
    onSaidChanged: console.debug(log, "compact:", said)

    Layout.minimumWidth: row.implicitWidth
    Layout.preferredWidth: row.implicitWidth

    // Where it is on the screen, in the debug log: where a test clicks to open the full view.
    function logPlace() {
        const place = mapToGlobal(0, 0);
        console.debug(log, "compact-at:", Math.round(place.x), Math.round(place.y), Math.round(width), Math.round(height));
    }
    onWidthChanged: Qt.callLater(logPlace)
    onHeightChanged: Qt.callLater(logPlace)
    Component.onCompleted: Qt.callLater(logPlace)

    Levels { id: levels }
    PlasmaTheme { id: theme }

    RowLayout {
        id: row
        anchors.fill: parent
        spacing: theme.smallSpacing
        UsageBar {
            Layout.preferredWidth: theme.gridUnit * 2
            Layout.preferredHeight: Math.round(theme.gridUnit / 2)
            Layout.alignment: Qt.AlignVCenter
            fill: compact.view.fill
            tint: compact.tint
        }
        PlasmaComponents3.Label {
            id: label
            text: compact.view.text
            color: compact.tint
            font.italic: compact.view.mode === "stale"
            Layout.alignment: Qt.AlignVCenter
        }
    }
}
