// The Used Space widget for Plasma 6: the compact view (bar and percentage) for a panel, the
// full view with every watched filesystem's details, fed by the client's long poll
// (StatusPoll). What is Plasma 6's here: the PlasmoidItem root and its `expanded`, and
// `Plasmoid.configuration`.
import QtQuick 2.15
import QtCore
import org.kde.plasma.plasmoid 2.0
import "../code/display.js" as Display

PlasmoidItem {
    id: root

    readonly property string home: decodeURIComponent(String(StandardPaths.writableLocation(StandardPaths.HomeLocation)).replace(/^file:\/\//, ""))
    readonly property var view: Display.indicatorView(poll.current.daemon, poll.current.filesystems, home)

    DebugLog { id: debugLog }

    StatusPoll {
        id: poll
        missingEngine: i18n("Plasma's executable data engine is missing: install qml6-module-org-kde-plasma-plasma5support.")
    }

    AnalyzerLauncher { id: analyzer }

    compactRepresentation: CompactRepresentation {
        view: root.view
        log: debugLog
        onClicked: root.expanded = !root.expanded
    }
    fullRepresentation: FullRepresentation {
        status: poll.current
        home: root.home
        log: debugLog
        onOpenAnalyzer: filesystem => analyzer.open(Plasmoid.configuration.analyzerCommand, filesystem)
    }
    toolTipMainText: i18n("Used Space")
    toolTipSubText: poll.current.problem !== "" ? poll.current.problem : view.text
    Plasmoid.icon: "drive-harddisk"
}
