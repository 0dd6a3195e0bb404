/* For the tests only (GNOME 43/44): turns on unsafe mode, in which org.gnome.Shell.Eval
   answers, so that a test can read what the extension shows; leaves the Overview the shell
   starts in; blocks banners and clears the start's notifications (a root session's warning,
   unsafe mode's), which would otherwise fill the date menu's screenshots. */
const Main = imports.ui.main;

class Extension {
    enable() {
        global.context.unsafe_mode = true;
        Main.messageTray.bannerBlocked = true;
        if (Main.layoutManager._startingUp) {
            this._id = Main.layoutManager.connect('startup-complete', () => {
                Main.layoutManager.disconnect(this._id);
                this._id = 0;
                this._settle();
            });
        } else {
            this._settle();
        }
    }

    _settle() {
        Main.overview.hide();
        for (const source of Main.messageTray.getSources())
            source.destroy();
    }

    disable() {
        if (this._id)
            Main.layoutManager.disconnect(this._id);
        this._id = 0;
    }
}

function init() {
    return new Extension();
}
