// Plasma 6's configuration page: the form in a KCM page, its setting as a cfg_ property
// (and the default Plasma 6 sets beside each one).
import QtQuick 2.15
import org.kde.kcmutils 1.0 as KCM

KCM.SimpleKCM {
    property alias cfg_analyzerCommand: form.command
    property string cfg_analyzerCommandDefault

    AnalyzerCommandForm {
        id: form
    }
}
