// GNOME 43 and 44 load this file with the legacy importer (desktop/build.sh converts the
// shared modules beside it to that form); everything else is in usedSpace.js.
const ExtensionUtils = imports.misc.extensionUtils;
const {UsedSpace} = ExtensionUtils.getCurrentExtension().imports.usedSpace;

class Extension {
    enable() {
        this._usedSpace = new UsedSpace(ExtensionUtils.getSettings(), () => ExtensionUtils.openPrefs());
    }

    disable() {
        this._usedSpace.destroy();
        this._usedSpace = null;
    }
}

function init() {
    return new Extension();
}
