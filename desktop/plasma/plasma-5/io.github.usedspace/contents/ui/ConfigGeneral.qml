// Plasma 5.27's configuration page: the form itself, its setting as a cfg_ property.
import QtQuick 2.15

AnalyzerCommandForm {
    id: form
    property alias cfg_analyzerCommand: form.command
}
