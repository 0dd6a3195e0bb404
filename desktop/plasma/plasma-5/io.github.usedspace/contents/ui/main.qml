// The Used Space widget for Plasma 5.27: the compact view (bar and percentage) for a panel,
// the full view with every watched filesystem's details, fed by the client's long poll
// (StatusPoll). What is Plasma 5's here: the root Item with the Plasmoid attached
// properties, `plasmoid.expanded` and `plasmoid.configuration`.
import QtQuick 2.15
import Qt.labs.platform 1.1 as Platform
import org.kde.plasma.plasmoid 2.0
import "../code/display.js" as Display

Item {
    id: root

    readonly property string home: decodeURIComponent(String(Platform.StandardPaths.writableLocation(Platform.StandardPaths.HomeLocation)).replace(/^file:\/\//, ""))
    readonly property var view: Display.indicatorView(poll.current.daemon, poll.current.filesystems, home)

    DebugLog { id: debugLog }

    StatusPoll {
        id: poll
        missingEngine: i18n("Plasma's data engines are missing: install plasma-framework.")
    }

    AnalyzerLauncher { id: analyzer }

    Plasmoid.compactRepresentation: CompactRepresentation {
        view: root.view
        log: debugLog
        onClicked: plasmoid.expanded = !plasmoid.expanded
    }
    Plasmoid.fullRepresentation: FullRepresentation {
        status: poll.current
        home: root.home
        log: debugLog
        onOpenAnalyzer: analyzer.open(plasmoid.configuration.analyzerCommand, filesystem)
    }
    Plasmoid.toolTipMainText: i18n("Used Space")
    Plasmoid.toolTipSubText: poll.current.problem !== "" ? poll.current.problem : view.text
    Plasmoid.icon: "drive-harddisk"
}
