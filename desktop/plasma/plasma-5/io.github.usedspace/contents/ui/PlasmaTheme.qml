// What the views take from the Plasma 5.27 theme (PlasmaCore): sizes and text colours.
import QtQuick 2.15
import org.kde.plasma.core 2.0 as PlasmaCore

QtObject {
    readonly property int gridUnit: PlasmaCore.Units.gridUnit
    readonly property int smallSpacing: PlasmaCore.Units.smallSpacing
    readonly property int largeSpacing: PlasmaCore.Units.largeSpacing

    readonly property color textColor: PlasmaCore.Theme.textColor
    readonly property color neutralTextColor: PlasmaCore.Theme.neutralTextColor
    readonly property color negativeTextColor: PlasmaCore.Theme.negativeTextColor
    readonly property color disabledTextColor: PlasmaCore.Theme.disabledTextColor
}
