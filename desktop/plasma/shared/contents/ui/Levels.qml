// The colours of the levels, from the Plasma theme (Breeze: neutral is orange, negative red),
// and grey while there is no daemon.
import QtQuick 2.15

QtObject {
    readonly property PlasmaTheme theme: PlasmaTheme {}

    function color(view) {
        if (view.mode === "no-daemon" || view.mode === "empty")
            return theme.disabledTextColor;
        if (view.level === "critical")
            return theme.negativeTextColor;
        if (view.level === "warning")
            return theme.neutralTextColor;
        return theme.textColor;
    }
}
