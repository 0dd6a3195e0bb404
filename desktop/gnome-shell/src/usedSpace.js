// The extension, whichever GNOME loads it (desktop/gnome-shell/gnome-43 and gnome-45 hold
// the thin entry points): the indicator, the date menu's section and the D-Bus client, wired
// to the settings. Everything it shows comes from the daemon over D-Bus.
import GLib from 'gi://GLib';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {UsedSpaceClient} from './client.js';
import {Indicator} from './indicator.js';
import {DateMenuSection, insertIntoDateMenu} from './dateMenuSection.js';
import {openAnalyzer} from './analyzer.js';

export class UsedSpace {
    constructor(settings, openPreferences) {
        this._settings = settings;
        this._home = GLib.get_home_dir();
        const analyze = filesystem => openAnalyzer(this._settings.get_string('analyzer-command'), filesystem);
        this._analyze = analyze;
        this._client = null;
        this._indicator = null;
        this._dateMenuSection = null;
        this._settingsId = 0;
        // A shell that refuses a part (an API gone) puts the extension in its error state:
        // what was made before it is taken away, not left half-working in the top bar.
        try {
            this._indicator = new Indicator({
                openAnalyzer: analyze,
                startDaemon: () => this._client.startDaemon(),
                openPreferences,
            });
            Main.panel.addToStatusArea('usedspace', this._indicator);
            this._settingsId = settings.connect('changed::show-in-date-menu', () => this._syncDateMenu());
            this._client = new UsedSpaceClient(() => this._update());
            this._syncDateMenu();
            this._update();
        } catch (error) {
            this.destroy();
            throw error;
        }
    }

    _syncDateMenu() {
        const wanted = this._settings.get_boolean('show-in-date-menu');
        if (wanted && !this._dateMenuSection) {
            this._dateMenuSection = new DateMenuSection(this._analyze);
            if (!insertIntoDateMenu(this._dateMenuSection)) {
                log('usedspace: this date menu has no World Clocks or Weather section to join');
                this._dateMenuSection.destroy();
                this._dateMenuSection = null;
                return;
            }
            this._update();
        } else if (!wanted && this._dateMenuSection) {
            this._dateMenuSection.destroy();
            this._dateMenuSection = null;
        }
    }

    _update() {
        const {daemon, filesystems} = this._client;
        this._indicator.update(daemon, filesystems, this._home);
        if (this._dateMenuSection)
            this._dateMenuSection.update(daemon, filesystems, this._home);
    }

    destroy() {
        if (this._settingsId)
            this._settings.disconnect(this._settingsId);
        this._client?.destroy();
        this._dateMenuSection?.destroy();
        this._indicator?.destroy();
        this._settingsId = 0;
        this._client = this._dateMenuSection = this._indicator = null;
    }
}
