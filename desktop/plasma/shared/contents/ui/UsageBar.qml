// The widget's progress bar: the used share filled in the level's colour, the rest faint.
import QtQuick 2.15

Rectangle {
    property real fill: 0
    property color tint

    color: Qt.rgba(tint.r, tint.g, tint.b, 0.3)
    Rectangle {
        anchors.left: parent.left
        anchors.top: parent.top
        anchors.bottom: parent.bottom
        width: Math.round(parent.width * parent.fill)
        color: parent.tint
    }
}
