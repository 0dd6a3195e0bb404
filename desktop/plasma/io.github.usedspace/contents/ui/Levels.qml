// The colours of the levels, from the Plasma theme (Breeze: neutral is orange, negative red),
// and grey while there is no daemon.
import QtQuick 2.15
import org.kde.plasma.core 2.0 as PlasmaCore

QtObject {
    function color(view) {
        if (view.mode === "no-daemon" || view.mode === "empty")
            return PlasmaCore.Theme.disabledTextColor;
        if (view.level === "critical")
            return PlasmaCore.Theme.negativeTextColor;
        if (view.level === "warning")
            return PlasmaCore.Theme.neutralTextColor;
        return PlasmaCore.Theme.textColor;
    }
}
