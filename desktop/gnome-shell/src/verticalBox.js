// A vertically stacked St.BoxLayout on every GNOME Shell the extension supports. GNOME 48
// gave St.BoxLayout an `orientation` and deprecated its `vertical` (51 removed it); before
// 48 only `vertical` exists. The one place that knows which shell has which.
import Clutter from 'gi://Clutter';
import St from 'gi://St';
import * as Config from 'resource:///org/gnome/shell/misc/config.js';

const SHELL_MAJOR = parseInt(Config.PACKAGE_VERSION, 10);

export function verticalBox(params = {}) {
    const direction = SHELL_MAJOR >= 48 ? {orientation: Clutter.Orientation.VERTICAL} : {vertical: true};
    return new St.BoxLayout({...params, ...direction});
}
