// One watched filesystem in the indicator's menu: its name, mount point and type, a bar
// with the percentage, and the details (Used, Free, Total, the trend, a fast fill, btrfs,
// read-only; why it is stale or failed). Activating it opens the disk usage analyzer there.
import GObject from 'gi://GObject';
import St from 'gi://St';
import Clutter from 'gi://Clutter';
import * as PopupMenu from 'resource:///org/gnome/shell/ui/popupMenu.js';
import {UsageBar} from './usageBar.js';
import {verticalBox} from './verticalBox.js';
import {applyStyle} from './styleClasses.js';

export const FilesystemItem = GObject.registerClass(
class FilesystemItem extends PopupMenu.PopupBaseMenuItem {
    _init() {
        super._init({style_class: 'usedspace-filesystem'});
        const box = verticalBox({x_expand: true, style_class: 'usedspace-filesystem-box'});
        this.add_child(box);
        const heading = new St.BoxLayout({style_class: 'usedspace-heading'});
        this._title = new St.Label({style_class: 'usedspace-title'});
        this._subtitle = new St.Label({style_class: 'usedspace-subtitle', x_expand: true, x_align: Clutter.ActorAlign.END});
        heading.add_child(this._title);
        heading.add_child(this._subtitle);
        box.add_child(heading);
        this._gauge = new St.BoxLayout({style_class: 'usedspace-gauge'});
        this._bar = new UsageBar('usedspace-menu-bar');
        this._percent = new St.Label({style_class: 'usedspace-percent', y_align: Clutter.ActorAlign.CENTER});
        this._gauge.add_child(this._bar);
        this._gauge.add_child(this._percent);
        box.add_child(this._gauge);
        this._lines = verticalBox({style_class: 'usedspace-details'});
        box.add_child(this._lines);
        this.label_actor = this._title;
    }

    update(view) {
        this._title.text = view.title;
        this._subtitle.text = view.subtitle;
        applyStyle(this._gauge, view);
        this._bar.setFill(view.fill);
        this._percent.text = view.percent;
        this._lines.destroy_all_children();
        for (const [key, value] of view.lines) {
            const line = new St.BoxLayout({style_class: 'usedspace-detail'});
            line.add_child(new St.Label({style_class: 'usedspace-detail-key', text: key}));
            const text = new St.Label({style_class: 'usedspace-detail-value', text: value, x_expand: true});
            text.clutter_text.line_wrap = true;
            line.add_child(text);
            this._lines.add_child(line);
        }
    }
});
