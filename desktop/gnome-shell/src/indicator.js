// The top-bar indicator: the bar and the percentage of the filesystem most in need of
// attention (normally the home directory's), coloured by its level; its menu lists every
// watched filesystem with its details.
import GObject from 'gi://GObject';
import St from 'gi://St';
import Clutter from 'gi://Clutter';
import * as PanelMenu from 'resource:///org/gnome/shell/ui/panelMenu.js';
import * as PopupMenu from 'resource:///org/gnome/shell/ui/popupMenu.js';
import {UsageBar} from './usageBar.js';
import {applyStyle} from './styleClasses.js';
import {FilesystemItem} from './filesystemItem.js';
import {daemonMessage, filesystemView, indicatorView} from './display.js';
import {panelFilesystem, sortedForMenu} from './filesystems.js';

export const Indicator = GObject.registerClass(
class Indicator extends PanelMenu.Button {
    // `actions`: openAnalyzer(filesystem or null), startDaemon(), openPreferences().
    _init(actions) {
        super._init(0.0, 'Used Space');
        this._actions = actions;
        this._box = new St.BoxLayout({style_class: 'panel-status-menu-box usedspace-indicator'});
        this._bar = new UsageBar('usedspace-panel-bar');
        this._label = new St.Label({style_class: 'usedspace-label', y_align: Clutter.ActorAlign.CENTER});
        this._box.add_child(this._bar);
        this._box.add_child(this._label);
        this.add_child(this._box);
        this.label_actor = this._label;

        this._message = new PopupMenu.PopupMenuItem('', {reactive: false, style_class: 'usedspace-message'});
        // What to install and enable is one long line: wrapped at the menu's width.
        this._message.label.clutter_text.line_wrap = true;
        this.menu.addMenuItem(this._message);
        this._start = new PopupMenu.PopupMenuItem('Start the Daemon');
        this._start.connect('activate', () => actions.startDaemon());
        this.menu.addMenuItem(this._start);
        this._section = new PopupMenu.PopupMenuSection();
        this.menu.addMenuItem(this._section);
        this.menu.addMenuItem(new PopupMenu.PopupSeparatorMenuItem());
        const analyzer = new PopupMenu.PopupMenuItem('Open Disk Usage Analyzer');
        analyzer.connect('activate', () => actions.openAnalyzer(this._shown));
        this.menu.addMenuItem(analyzer);
        const settings = new PopupMenu.PopupMenuItem('Used Space Settings');
        settings.connect('activate', () => actions.openPreferences());
        this.menu.addMenuItem(settings);

        this._items = new Map();
        this._shown = null;
    }

    // `daemon`: 'connecting', 'running', 'absent' or 'missing' (UsedSpaceClient).
    update(daemon, filesystems, home) {
        const view = indicatorView(daemon, filesystems, home);
        this._label.text = view.text;
        this._bar.setFill(view.fill);
        applyStyle(this._box, view);
        this._shown = panelFilesystem(filesystems, home);

        const message = daemonMessage(daemon, filesystems);
        this._message.label.text = message;
        this._message.visible = message !== '';
        this._start.visible = daemon === 'absent';
        this._updateItems(sortedForMenu(filesystems, home), home);
    }

    // Items are updated in place (an open menu keeps its focus and hover while the numbers
    // move), and made anew only when the set of filesystems changes.
    _updateItems(filesystems, home) {
        const paths = filesystems.map(fs => fs.key);
        if (paths.join('\n') !== [...this._items.keys()].join('\n')) {
            this._section.removeAll();
            this._items.clear();
            for (const fs of filesystems) {
                const item = new FilesystemItem();
                item.connect('activate', () => this._actions.openAnalyzer(item.filesystem));
                this._section.addMenuItem(item);
                this._items.set(fs.key, item);
            }
        }
        for (const fs of filesystems) {
            const item = this._items.get(fs.key);
            item.filesystem = fs.problem ? null : fs;
            item.update(filesystemView(fs, home));
        }
    }
});
