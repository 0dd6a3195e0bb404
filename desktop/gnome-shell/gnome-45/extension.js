// GNOME 45 and later load extensions as ES modules: the shared modules beside this file are
// used as written; everything else is in usedSpace.js.
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
import {UsedSpace} from './usedSpace.js';

export default class UsedSpaceExtension extends Extension {
    enable() {
        this._usedSpace = new UsedSpace(this.getSettings(), () => this.openPreferences());
    }

    disable() {
        this._usedSpace.destroy();
        this._usedSpace = null;
    }
}
