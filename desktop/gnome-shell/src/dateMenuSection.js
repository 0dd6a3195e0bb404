// "Used Space" in the date menu, below World Clocks and Weather, as the widget sat in the
// Today view: per watched filesystem its name and percentage, the bar, and what is free. A click
// opens the disk usage analyzer, as the other sections open their apps.
import GObject from 'gi://GObject';
import St from 'gi://St';
import Clutter from 'gi://Clutter';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {UsageBar} from './usageBar.js';
import {verticalBox} from './verticalBox.js';
import {applyStyle} from './styleClasses.js';
import {daemonMessage, summaryLine} from './display.js';
import {sortedForMenu} from './filesystems.js';

export const DateMenuSection = GObject.registerClass(
class DateMenuSection extends St.Button {
    _init(openAnalyzer) {
        // The shell's own section style, so that it sits among the others as one of them.
        super._init({style_class: 'world-clocks-button usedspace-datemenu', can_focus: true, x_expand: true});
        this._openAnalyzer = openAnalyzer;
        const box = verticalBox({x_expand: true});
        this.child = box;
        const header = new St.Label({style_class: 'world-clocks-header', text: 'Used Space', x_align: Clutter.ActorAlign.START});
        box.add_child(header);
        this.label_actor = header;
        this._rows = verticalBox({style_class: 'usedspace-datemenu-rows'});
        box.add_child(this._rows);
    }

    // `daemon`: 'connecting', 'running', 'absent' or 'missing' (UsedSpaceClient).
    update(daemon, filesystems, home) {
        this._rows.destroy_all_children();
        if (filesystems.length === 0) {
            const text = daemonMessage(daemon, filesystems) || '…';
            this._rows.add_child(new St.Label({style_class: 'usedspace-datemenu-free', text}));
            return;
        }
        for (const fs of sortedForMenu(filesystems, home)) {
            const line = summaryLine(fs, home);
            const row = verticalBox({style_class: 'usedspace-datemenu-row'});
            applyStyle(row, line);
            const top = new St.BoxLayout();
            top.add_child(new St.Label({style_class: 'usedspace-datemenu-name', text: line.name, x_expand: true}));
            top.add_child(new St.Label({style_class: 'usedspace-datemenu-percent', text: line.percent}));
            row.add_child(top);
            const bar = new UsageBar('usedspace-datemenu-bar');
            bar.x_expand = true;
            bar.setFill(line.fill);
            row.add_child(bar);
            row.add_child(new St.Label({style_class: 'usedspace-datemenu-free', text: line.free}));
            this._rows.add_child(row);
        }
    }

    vfunc_clicked() {
        this._openAnalyzer(null);
        Main.panel.closeCalendar();
    }
});

// Puts `section` into the date menu after its last section (Weather, in GNOME 43 to 51).
// The shell offers no public way in: its private fields are read with care, and a shell
// without them gets no section (false), never an exception.
export function insertIntoDateMenu(section) {
    const dateMenu = Main.panel.statusArea.dateMenu;
    const anchor = [dateMenu?._weatherItem, dateMenu?._clocksItem].find(item => item instanceof Clutter.Actor);
    const parent = anchor?.get_parent();
    if (!parent)
        return false;
    parent.insert_child_above(section, anchor);
    return true;
}
