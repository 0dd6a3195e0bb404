/* For the tests only (GNOME 45 and later, ES modules; the legacy twin for 43/44 is in
   ../../gnome-shell): turns on unsafe mode, in which org.gnome.Shell.Eval answers (and, from
   GNOME 49, org.gnome.Shell.Screenshot too), so that a test can read what the extension
   shows; leaves the Overview the shell starts in; blocks banners and clears the start's
   notifications (a root session's warning, unsafe mode's), which would otherwise fill the
   date menu's screenshots. */
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

export default class TestHooks extends Extension {
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
