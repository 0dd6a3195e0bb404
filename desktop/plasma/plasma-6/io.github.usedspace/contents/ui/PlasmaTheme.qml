// What the views take from the Plasma 6 theme (Kirigami's units and colours, which Plasma 6
// sets from its theme): sizes and text colours.
import QtQuick 2.15
import org.kde.kirigami 2.20 as Kirigami

QtObject {
    readonly property int gridUnit: Kirigami.Units.gridUnit
    readonly property int smallSpacing: Kirigami.Units.smallSpacing
    readonly property int largeSpacing: Kirigami.Units.largeSpacing

    readonly property color textColor: Kirigami.Theme.textColor
    readonly property color neutralTextColor: Kirigami.Theme.neutralTextColor
    readonly property color negativeTextColor: Kirigami.Theme.negativeTextColor
    readonly property color disabledTextColor: Kirigami.Theme.disabledTextColor
}
