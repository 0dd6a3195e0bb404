// The widget's one setting: the command "Open Disk Usage Analyzer" runs (ConfigGeneral.qml
// makes it Plasma 5.27's or 6's configuration page).
import QtQuick 2.15
import QtQuick.Controls 2.15 as QQC2
import QtQuick.Layouts 1.15
import org.kde.kirigami 2.20 as Kirigami

Kirigami.FormLayout {
    property alias command: analyzer.text

    QQC2.TextField {
        id: analyzer
        Kirigami.FormData.label: i18n("Disk usage analyzer command:")
        placeholderText: "baobab \"$USEDSPACE_PATH\""
    }
    QQC2.Label {
        text: i18n("Run by /bin/sh with USEDSPACE_PATH and USEDSPACE_MOUNTPOINT set. Limits and labels are set in ~/.config/usedspace/config.")
        wrapMode: Text.Wrap
        Layout.maximumWidth: Kirigami.Units.gridUnit * 20
    }
}
