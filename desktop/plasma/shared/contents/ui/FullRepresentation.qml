// The full view: every watched filesystem with its bar and details (Used, Free, Total as
// `usedspace status --details` says them, the trend, a fast fill, btrfs, read-only), why
// there is nothing to show when there is not, and Open Disk Usage Analyzer.
import QtQuick 2.15
import QtQuick.Layouts 1.15
import org.kde.plasma.components 3.0 as PlasmaComponents3
import org.kde.plasma.extras 2.0 as PlasmaExtras
import "../code/display.js" as Display
import "../code/filesystems.js" as Filesystems

ColumnLayout {
    id: full
    // StatusPoll.current: {daemon, problem, filesystems}.
    property var status
    property string home
    property var log
    signal openAnalyzer(var filesystem)

    Layout.preferredWidth: theme.gridUnit * 22
    Layout.minimumHeight: implicitHeight
    spacing: theme.largeSpacing

    Levels { id: levels }
    PlasmaTheme { id: theme }

    PlasmaExtras.Heading {
        level: 4
        text: i18n("Used Space")
    }

    PlasmaComponents3.Label {
        id: message
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        // Plasma 5.27's Label aligns by its line count, which wrapping changes: a binding loop.
        verticalAlignment: Text.AlignTop
        visible: text !== ""
        // Without a daemon the client samples by itself: the numbers are still shown, and said
        // to be the client's.
        text: full.status.problem !== "" ? full.status.problem
            : full.status.daemon === "absent" ? i18n("The usedspace daemon is not running: these numbers are the client's own. Enable it with: systemctl --user enable --now usedspace.socket")
            : Display.daemonMessage(full.status.daemon, full.status.filesystems)
        onTextChanged: console.debug(full.log, "message:", message.text)
    }

    Repeater {
        model: Filesystems.sortedForMenu(full.status.filesystems, full.home)
        delegate: ColumnLayout {
            readonly property var view: Display.filesystemView(modelData, full.home)
            Layout.fillWidth: true
            spacing: theme.smallSpacing
            RowLayout {
                PlasmaComponents3.Label {
                    text: view.title
                    font.bold: true
                    Layout.fillWidth: true
                }
                PlasmaComponents3.Label {
                    text: view.subtitle
                    opacity: 0.7
                }
            }
            RowLayout {
                UsageBar {
                    Layout.fillWidth: true
                    Layout.preferredHeight: Math.round(theme.gridUnit / 2)
                    fill: view.fill
                    tint: levels.color(view)
                }
                PlasmaComponents3.Label {
                    text: view.percent
                    color: levels.color(view)
                    font.italic: view.mode === "stale"
                }
            }
            GridLayout {
                columns: 2
                columnSpacing: theme.largeSpacing
                rowSpacing: 0
                // The lines' labels and values, one cell each.
                Repeater {
                    model: [].concat.apply([], view.lines)
                    delegate: PlasmaComponents3.Label {
                        text: modelData
                        opacity: index % 2 === 0 ? 0.7 : 1
                        wrapMode: Text.Wrap
                        Layout.fillWidth: index % 2 === 1
                    }
                }
            }
            onViewChanged: console.debug(full.log, "details:", view.title, view.percent, view.lines.map(line => line.join(": ")).join("; "))
        }
    }

    PlasmaComponents3.Button {
        text: i18n("Open Disk Usage Analyzer")
        icon.name: "baobab"
        onClicked: full.openAnalyzer(Filesystems.panelFilesystem(full.status.filesystems, full.home))
    }
}
